// Accounts, optional: "Sign in" / "Create account" in the header, the account menu (profile,
// settings: password, passkey, sign out everywhere, delete), and the seats a guest holds moved
// to the account. The session is an HttpOnly cookie; requests that change something carry the
// session's CSRF token in a header (the server refuses them without it).
import { api, dialog, el, toast } from "./ui.js";
import { gameEntry, heldTokens } from "./mygames.js";
import { reminderSection } from "./push.js";
import { errorText } from "./errors.js";
import { list as listOf, num, t } from "./i18n.js";

const RATING = { useGrouping: false }; // a rating reads as one figure: 1012, not 1,012

let account = { user: null, csrf: "" };
let loaded = null;
const listeners = new Set();

/** The account ({user, csrf}); `user` is null for a guest. */
export function accountState() {
  if (!loaded) loaded = api("/api/account").then((data) => { account = { user: data.user, csrf: data.csrf || "" }; return account; })
    .catch(() => account);
  return loaded;
}

/** Call `fn(account)` now (once known) and whenever the account changes. */
export function onAccount(fn) {
  listeners.add(fn);
  accountState().then(fn);
}

function changed(data) {
  account = { user: data.user || null, csrf: data.csrf || "" };
  loaded = Promise.resolve(account);
  for (const fn of listeners) fn(account);
}

/** Request options with the session's CSRF header added. */
export function withCsrf(options = {}) {
  return { ...options, headers: { "Content-Type": "application/json", "X-CSRF-Token": account.csrf, ...(options.headers || {}) } };
}

/** POST `body` as the signed-in account. */
export function post(path, body = {}) {
  return api(path, withCsrf({ method: "POST", body: JSON.stringify(body) }));
}

/** Record the signed-in account on the seats these tokens open ([{id, token}]); quiet for a guest. */
export async function claimSeats(games) {
  const { user } = await accountState();
  if (!user || !games.length) return [];
  try { return (await post("/api/account/claim", { games: games.slice(-200) })).claimed; } catch { return []; }
}

export function claimSeat(gameId, token) {
  return token ? claimSeats([{ id: gameId, token }]) : Promise.resolve([]);
}

function field(id, label, type, extra = {}) {
  const input = el("input", { id, name: id, type, required: true, ...extra });
  return { input, node: el("label", { class: "field", for: id }, label, input) };
}

function errorLine(id) {
  return el("p", { class: "form-error", id, role: "alert", hidden: true });
}

function showError(node, message) {
  node.textContent = message;
  node.hidden = false;
}

/** The sign-in / create-account dialog (`mode` "sign-in" or "sign-up"). */
export function openSignIn(mode = "sign-in") {
  document.querySelector("#account-dialog")?.closest(".overlay")?.remove();
  const signUp = mode === "sign-up";
  const name = field("account-name", t("account.userName"), "text", { autocomplete: "username", maxlength: 20, minlength: 3,
    pattern: "[A-Za-z][A-Za-z0-9_\\-]{2,19}", title: t("account.userNameRule") });
  const password = field("account-password", t("account.password"), "password",
    { autocomplete: signUp ? "new-password" : "current-password", maxlength: 1024, minlength: signUp ? 8 : 1 });
  const error = errorLine("account-error");
  const submit = el("button", { type: "submit", class: "primary", id: "account-submit", text: signUp ? t("account.createAccount") : t("account.signIn") });
  const form = el("form", { class: "account-form", id: "account-form" }, name.node, password.node,
    signUp ? el("p", { class: "hint", text: t("account.signUpHint") }) : null,
    error, el("div", { class: "dialog-actions" }, submit));
  const other = el("button", { type: "button", class: "link", id: "account-switch",
    text: signUp ? t("account.haveAccount") : t("account.newHere"),
    onclick: () => { d.close(); openSignIn(signUp ? "sign-in" : "sign-up"); } });
  const passkey = !signUp && window.PublicKeyCredential
    ? el("button", { type: "button", id: "passkey-sign-in", text: t("account.passkeySignIn"), onclick: () => passkeySignIn(error, d) })
    : null;
  const cancel = el("button", { type: "button", text: t("account.cancel"), onclick: () => d.close() });
  const d = dialog(signUp ? t("account.createTitle") : t("account.signIn"), el("div", {}, form,
    passkey ? el("div", { class: "passkey-row" }, el("span", { class: "muted", text: t("account.or") }), passkey) : null, other),
  [cancel], { className: "account-dialog", modal: true });
  d.node.id = "account-dialog";
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    submit.disabled = true;
    error.hidden = true;
    try {
      const data = await api(`/api/account/${signUp ? "sign-up" : "sign-in"}`, { method: "POST",
        body: JSON.stringify({ name: name.input.value.trim(), password: password.input.value }) });
      changed(data);
      await carryGuestGames();
      if (signUp && window.PublicKeyCredential) { offerPasskey(d, data.user.name); return; }
      d.close();
      toast(signUp ? t("account.welcome", { name: data.user.name }) : t("account.signedInAs", { name: data.user.name }), "info");
    } catch (err) {
      showError(error, errorText(err, { name: name.input.value.trim() }));
    } finally {
      submit.disabled = false;
    }
  });
  setTimeout(() => name.input.focus(), 0);
}

/** After sign-up, where the browser offers passkeys: add one now (or later, in Settings). */
function offerPasskey(d, name) {
  const status = errorLine("passkey-status");
  const add = el("button", { type: "button", class: "primary", id: "offer-passkey", text: t("account.addPasskey"),
    onclick: async () => { await addPasskey(status); if (status.className === "form-ok") { add.remove(); later.textContent = t("account.done"); } } });
  const later = el("button", { type: "button", id: "passkey-later", text: t("account.notNow"), onclick: () => d.close() });
  d.node.querySelector("h2").textContent = t("account.welcome", { name });
  d.node.querySelector(":scope > div:not(.dialog-actions)").replaceChildren(
    el("p", { text: t("account.passkeyOffer") }), status);
  d.node.querySelector(".dialog-actions").replaceChildren(later, add);
  add.focus();
}

/** A guest's games (the tokens this browser keeps) move to the account just signed in to. */
async function carryGuestGames() {
  const claimed = await claimSeats(heldTokens());
  if (claimed.length) toast(t("account.gamesAdded", { count: claimed.length }), "info");
}

// ---- passkeys ------------------------------------------------------------------------------

const b64 = {
  decode(text) {
    const base = text.replace(/-/g, "+").replace(/_/g, "/");
    const bytes = atob(base + "=".repeat((4 - (base.length % 4)) % 4));
    return Uint8Array.from(bytes, (c) => c.charCodeAt(0)).buffer;
  },
  encode(buffer) {
    let text = "";
    for (const byte of new Uint8Array(buffer)) text += String.fromCharCode(byte);
    return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  },
};

function credentialJson(credential) {
  const r = credential.response;
  const response = { clientDataJSON: b64.encode(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = b64.encode(r.attestationObject);
    if (r.getTransports) response.transports = r.getTransports();
  }
  if (r.authenticatorData) response.authenticatorData = b64.encode(r.authenticatorData);
  if (r.signature) response.signature = b64.encode(r.signature);
  if (r.userHandle) response.userHandle = b64.encode(r.userHandle);
  return { id: credential.id, rawId: b64.encode(credential.rawId), type: credential.type, response,
    clientExtensionResults: credential.getClientExtensionResults ? credential.getClientExtensionResults() : {},
    authenticatorAttachment: credential.authenticatorAttachment || undefined };
}

async function passkeySignIn(error, d) {
  try {
    const options = await api("/api/account/passkey-sign-in/options", { method: "POST", body: "{}" });
    const credential = await navigator.credentials.get({ publicKey: {
      ...options, challenge: b64.decode(options.challenge),
      allowCredentials: (options.allowCredentials || []).map((c) => ({ ...c, id: b64.decode(c.id) })) } });
    const data = await api("/api/account/passkey-sign-in", { method: "POST",
      body: JSON.stringify({ credential: credentialJson(credential) }) });
    changed(data);
    d.close();
    await carryGuestGames();
    toast(t("account.signedInAs", { name: data.user.name }), "info");
  } catch (err) {
    showError(error, err.name === "NotAllowedError" ? t("account.noPasskeyChosen")
      : errorText(err, {}, { BAD_CREDENTIALS: "errors.passkeyRefused" }));
  }
}

async function addPasskey(status) {
  try {
    const options = await post("/api/account/passkeys/options");
    const credential = await navigator.credentials.create({ publicKey: {
      ...options, challenge: b64.decode(options.challenge), user: { ...options.user, id: b64.decode(options.user.id) },
      excludeCredentials: (options.excludeCredentials || []).map((c) => ({ ...c, id: b64.decode(c.id) })) } });
    await post("/api/account/passkeys", { credential: credentialJson(credential) });
    status.textContent = t("account.passkeyAdded");
    status.className = "form-ok";
  } catch (err) {
    status.textContent = err.name === "NotAllowedError" ? t("account.passkeyNotCreated") : errorText(err);
    status.className = "form-error";
  }
  status.hidden = false;
}

// ---- settings ------------------------------------------------------------------------------

/** Settings: change password, add a passkey, sign out everywhere, delete the account. */
export function openSettings() {
  const { user } = account;
  if (!user) return;
  document.querySelector("#settings-dialog")?.closest(".overlay")?.remove();
  const current = field("current-password", t("account.currentPassword"), "password", { autocomplete: "current-password", maxlength: 1024 });
  const fresh = field("new-password", t("account.newPassword"), "password", { autocomplete: "new-password", maxlength: 1024, minlength: 8 });
  const pwStatus = errorLine("password-status");
  const pwForm = el("form", { class: "account-form", id: "password-form" }, el("h3", { text: t("account.changePassword") }),
    current.node, fresh.node, pwStatus,
    el("button", { type: "submit", id: "change-password", text: t("account.changePassword") }));
  pwForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const data = await post("/api/account/password", { current: current.input.value, new: fresh.input.value });
      pwStatus.textContent = t("account.passwordChanged", { count: data.signed_out });
      pwStatus.className = "form-ok";
      pwForm.reset();
    } catch (err) {
      pwStatus.textContent = errorText(err);
      pwStatus.className = "form-error";
    }
    pwStatus.hidden = false;
  });
  const pkStatus = errorLine("passkey-status");
  const passkeys = el("section", { class: "account-form" }, el("h3", { text: t("account.passkeys") }),
    el("p", { class: "hint", text: t("account.passkeysHint", { count: user.passkeys || 0 }) }),
    window.PublicKeyCredential
      ? el("button", { type: "button", id: "add-passkey", text: t("account.addPasskey"), onclick: () => addPasskey(pkStatus) })
      : el("p", { class: "muted", text: t("account.noPasskeys") }), pkStatus);
  const everywhere = el("button", { type: "button", id: "sign-out-everywhere", text: t("account.signOutEverywhere"),
    onclick: async () => {
      try { await post("/api/account/sign-out-everywhere"); changed({}); d.close(); toast(t("account.signedOutEverywhere"), "info"); }
      catch (err) { toast(errorText(err)); }
    } });
  const confirm = field("delete-password", t("account.confirmPassword"), "password", { autocomplete: "current-password", maxlength: 1024 });
  const delStatus = errorLine("delete-status");
  const delForm = el("form", { class: "account-form danger-zone", id: "delete-form" }, el("h3", { text: t("account.deleteTitle") }),
    el("p", { class: "hint", text: t("account.deleteHint") }),
    user.has_password ? confirm.node : null, delStatus,
    el("button", { type: "submit", class: "danger", id: "delete-account", text: t("account.deleteButton") }));
  delForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await post("/api/account/delete", { password: user.has_password ? confirm.input.value : null });
      changed({});
      d.close();
      toast(t("account.deleted"), "info");
    } catch (err) {
      showError(delStatus, errorText(err));
    }
  });
  const close = el("button", { type: "button", text: t("account.close"), onclick: () => d.close() });
  const d = dialog(t("account.settingsTitle", { name: user.name }), el("div", { class: "account-settings" }, pwForm, passkeys, reminderSection(withCsrf),
    el("section", { class: "account-form" }, el("h3", { text: t("account.sessions") }), everywhere), delForm),
  [close], { className: "settings-dialog", modal: true });
  d.node.id = "settings-dialog";
}

// ---- header --------------------------------------------------------------------------------

function renderSlot(slot, { user }) {
  if (!user) {
    slot.replaceChildren(
      el("button", { type: "button", class: "topbar-button", id: "sign-in-open", text: t("account.signIn"), onclick: () => openSignIn("sign-in") }),
      el("button", { type: "button", class: "topbar-button strong", id: "sign-up-open", text: t("account.createAccount"),
        onclick: () => openSignIn("sign-up") }));
    return;
  }
  const menu = el("div", { class: "account-menu", id: "account-menu", role: "menu", hidden: true },
    el("a", { href: `/players/${encodeURIComponent(user.name)}`, role: "menuitem", id: "menu-profile", text: t("account.profile") }),
    el("button", { type: "button", role: "menuitem", id: "menu-settings", text: t("account.settings"),
      onclick: () => { menu.hidden = true; openSettings(); } }),
    el("button", { type: "button", role: "menuitem", id: "menu-sign-out", text: t("account.signOut"), onclick: async () => {
      try { await post("/api/account/sign-out"); } catch { /* signed out already */ }
      changed({});
      toast(t("account.signedOut"), "info");
    } }));
  const button = el("button", { type: "button", class: "topbar-button", id: "account-button", "aria-haspopup": "menu",
    "aria-expanded": "false", text: `${user.name} ▾`, onclick: () => {
      menu.hidden = !menu.hidden;
      button.setAttribute("aria-expanded", String(!menu.hidden));
    } });
  slot.replaceChildren(button, menu);
}

/** The header's account corner (every page). */
export function installAccountMenu() {
  const slot = document.getElementById("account-slot");
  if (!slot) return;
  onAccount((state) => renderSlot(slot, state));
  document.addEventListener("click", (event) => {
    const menu = document.getElementById("account-menu");
    if (menu && !menu.hidden && !slot.contains(event.target)) {
      menu.hidden = true;
      document.getElementById("account-button")?.setAttribute("aria-expanded", "false");
    }
  });
}

// ---- game pages ----------------------------------------------------------------------------

/** A signed-in player's own seat is named after the account (unless they typed another name). */
export function nameOwnSeat(inputs) {
  const defaults = new Map(inputs.map((input) => [input, input.value]));
  onAccount(({ user }) => {
    for (const [input, value] of defaults) if (user && input.value === value) input.value = user.name;
  });
}

/** The start page's "Rated" choice for an online game (shown to a signed-in player only). */
export function ratedOption() {
  const box = el("input", { type: "checkbox", id: "on-rated", name: "on-rated" });
  const label = el("label", { class: "rated-option", for: "on-rated", hidden: true }, box,
    ` ${t("account.ratedOption")}`);
  onAccount(({ user }) => { label.hidden = !user; if (!user) box.checked = false; });
  return { node: label, checked: () => !label.hidden && box.checked };
}

// Why a rated game was not rated: the server's reason codes (ratings.py UNRATED_REASONS), in the page's words.
const UNRATED = {
  COMPUTER_SEAT: "account.unrated.computer",
  SEAT_NOT_HELD: "account.unrated.notHeld",
  TWO_SEATS: "account.unrated.twoSeats",
};
function unratedReason(data) {
  return UNRATED[data.reason_code] ? t(UNRATED[data.reason_code]) : data.reason;
}

/** Append a rated game's rating change to the final dialog `node` (it may take a moment to apply). */
export async function showRatingChange(gameId, node) {
  for (let attempt = 0; attempt < 10; attempt++) {
    let data;
    try { data = await api(`/api/games/${encodeURIComponent(gameId)}/rating`); } catch { return; }
    if (!data.rated) return;
    if (data.state === "unrated") {
      node.querySelector(".rating-change")?.remove();
      node.querySelector("[data-testid=scoring]")?.after(el("p", { class: "rating-change muted",
        text: t("account.notRated", { reason: unratedReason(data) }) }));
      return;
    }
    if (data.state === "applied") {
      const list = el("ul", { class: "rating-change", id: "rating-change" });
      for (const c of data.changes) {
        const sign = c.delta > 0 ? "+" : "";
        list.append(el("li", {}, el("a", { href: c.player ? `/players/${encodeURIComponent(c.player)}` : null, text: c.player || t("account.deletedPlayer") }),
          ` ${num(c.before, RATING)} → ${num(c.after, RATING)} `, el("strong", { class: c.delta >= 0 ? "up" : "down", text: `(${sign}${num(c.delta)})` }),
          c.forfeit ? el("span", { class: "muted", text: ` — ${t("account.leftGame")}` }) : null));
      }
      node.querySelector("[data-testid=scoring]")?.after(el("div", { class: "rating-box" }, el("h3", { text: t("profile.rating") }), list));
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** A rated game's note at the top of the side panel: who still has to sign in before the first
 *  move (a seat not held by an account then makes the game casual), or that it counts. Looked
 *  at again every few seconds while a seat waits for its account. */
export async function ratedNotice(gameId, panel, seats) {
  const note = el("p", { class: "rated-notice", id: "rated-notice", hidden: true });
  panel.prepend(note);
  for (let look = 0; look < 150 && note.isConnected; look++) {
    let data;
    try { data = await api(`/api/games/${encodeURIComponent(gameId)}/rating`); } catch { return; }
    if (!data.rated) { note.remove(); return; }
    const held = new Set(data.held.map((h) => h.seat));
    const missing = seats.filter((s) => !held.has(s.seat)).map((s) => s.name);
    note.hidden = false;
    if (data.state === "unrated") { note.textContent = t("account.casualBecause", { reason: unratedReason(data) }); return; }
    if (!missing.length || data.state === "applied") {
      note.textContent = t("account.ratedCounts");
      return;
    }
    if (data.started) {
      note.textContent = t("account.casualNotHeld");
      return;
    }
    note.textContent = t("account.ratedWaiting", { count: missing.length, players: listOf(missing) });
    await new Promise((resolve) => setTimeout(resolve, 4000));
  }
}

/** The start page's "On your account" list: unfinished games the signed-in account holds that
 *  this browser does not keep (started on another device); hidden when there are none. */
export function accountGamesSection() {
  const list = el("ul", { class: "game-list", id: "account-games-list" });
  const section = el("section", { class: "my-games", id: "account-games", hidden: true, "aria-labelledby": "account-games-title" },
    el("h2", { id: "account-games-title", text: t("account.onAccount") }),
    el("p", { class: "muted", text: t("account.onAccountHint") }), list);
  onAccount(async ({ user }) => {
    list.replaceChildren();
    section.hidden = true;
    if (!user) return;
    let data;
    try { data = await api("/api/account/games"); } catch { return; }
    for (const g of data.games) {
      if (gameEntry(g.id)) continue; // listed in "Your games" already
      const turn = g.current !== null && g.mine.includes(g.current);
      list.append(el("li", { "data-game": g.id, class: turn ? "turn" : "" },
        el("a", { href: `/play/${encodeURIComponent(g.id)}`, class: "resume-link button", text: t("mygames.resume") }),
        ` ${g.seats.map((s) => s.name).join(" · ")} — `,
        el("span", { class: turn ? "your-turn" : "", text: turn ? t("mygames.yourTurn") : t("mygames.waiting") })));
    }
    section.hidden = !list.children.length;
  });
  return section;
}
