// "Rematch?" in the final dialog of a game between people: a player offers (accepts), the
// others see the offer, and when every seat has accepted each page opens the new game with
// the same seat token (the server gave the new seats the old seats' tokens).
import { api, el, errorMessage, playerName, toast } from "./ui.js";
import { list, t } from "./i18n.js";
import { rememberGame } from "./mygames.js";

const POLL_MS = 2000;

export function rematchOffer(gameId, token, dialogNode) {
  const path = `/api/games/${encodeURIComponent(gameId)}/rematch`;
  const headers = { "Content-Type": "application/json", "X-Game-Token": token };
  const status = el("p", { class: "rematch-status", id: "rematch-status", "aria-live": "polite" });
  const button = el("button", { type: "button", class: "primary", id: "rematch", text: t("score.rematchOffer") });
  const box = el("div", { class: "rematch" }, button, status);
  dialogNode.append(box);
  let seats = null;
  let timer = null;

  function show(offer) {
    if (offer.new_game_id) {
      rememberGame(offer.new_game_id, token, { mode: "online" });
      location.href = `/play/${encodeURIComponent(offer.new_game_id)}?seat=${encodeURIComponent(token)}`;
      return true;
    }
    if (offer.accepted.length) {
      const names = list(offer.accepted.map((s) => playerName(seats, s)));
      status.textContent = t("score.rematchAccepted", { names });
      if (!button.disabled) button.textContent = t("score.rematchAccept");
    }
    return false;
  }

  async function poll() {
    clearTimeout(timer);
    try { if (show(await api(path, { headers }))) return; } catch { /* try again */ }
    if (document.body.contains(box)) timer = setTimeout(poll, POLL_MS);
  }

  button.addEventListener("click", async () => {
    try {
      button.disabled = true;
      show(await api(path, { method: "POST", headers }));
    } catch (err) { toast(errorMessage(err)); button.disabled = false; }
  });
  api(`/api/games/${encodeURIComponent(gameId)}`).then((s) => { seats = s.seats; }).catch(() => {});
  poll();
}
