// Sound effects, synthesised with the Web Audio API (no sound files): a card drawn, a route
// claimed, a tunnel's cards revealed, your turn, the final round, and the final-scoring
// ceremony's ticks. One volume setting (0 = off), remembered in localStorage. Browsers start
// audio only after a user gesture: the audio context is made on the first click or key press.
import { drawKind } from "./fly.js";
import { t } from "./i18n.js";

const VOLUME_KEY = "ttr-volume";
export const DEFAULT_VOLUME = 40; // of 100: moderate

/** Each effect: notes as [frequency Hz, start s, length s, waveform, loudness 0..1, glide-to Hz]. */
const EFFECTS = {
  draw: [[1400, 0, 0.07, "triangle", 0.5, 700]],
  claim: [[196, 0, 0.09, "square", 0.25], [196, 0.11, 0.09, "square", 0.25], [392, 0.22, 0.1, "triangle", 0.6],
    [523, 0.32, 0.22, "triangle", 0.6]],
  tunnel: [[392, 0, 0.14, "sine", 0.7], [330, 0.17, 0.14, "sine", 0.7], [262, 0.34, 0.3, "sine", 0.7, 220]],
  turn: [[660, 0, 0.28, "sine", 0.8], [880, 0.16, 0.28, "sine", 0.8]],
  final: [[587, 0, 0.45, "sawtooth", 0.18], [740, 0, 0.45, "sawtooth", 0.18], [587, 0.55, 0.7, "sawtooth", 0.18],
    [740, 0.55, 0.7, "sawtooth", 0.18]],
  ticket: [[988, 0, 0.12, "triangle", 0.5]],
  miss: [[180, 0, 0.22, "square", 0.2, 140]],
  fanfare: [[523, 0, 0.16, "triangle", 0.6], [659, 0.15, 0.16, "triangle", 0.6], [784, 0.3, 0.16, "triangle", 0.6],
    [1047, 0.45, 0.5, "triangle", 0.6]],
};
export const EFFECT_NAMES = Object.keys(EFFECTS);

// What was asked for and what was made, read by the tests: `events` counts each effect played per
// event (whatever the volume), `nodes` the audio nodes made (none at volume 0).
const stats = { events: Object.fromEntries(EFFECT_NAMES.map((n) => [n, 0])), nodes: 0 };
window.ttrSound = stats;

let context = null;
let unlocked = false;

/** The volume, 0..100 (0 = off). */
export function volume() {
  const stored = localStorage.getItem(VOLUME_KEY);
  const value = stored === null ? DEFAULT_VOLUME : Number(stored);
  return Number.isFinite(value) ? Math.max(0, Math.min(100, Math.round(value))) : DEFAULT_VOLUME;
}

export function setVolume(value) {
  localStorage.setItem(VOLUME_KEY, String(Math.max(0, Math.min(100, Math.round(Number(value) || 0)))));
}

function unlock() {
  unlocked = true;
  if (context && context.state === "suspended") context.resume();
}
window.addEventListener("pointerdown", unlock, { capture: true });
window.addEventListener("keydown", unlock, { capture: true });

/**
 * Plays one effect at the current volume; returns how many audio nodes it made (0 when the
 * volume is 0, before the first user gesture, or without Web Audio).
 *
 *   play("claim") → 9   (four notes: an oscillator and a gain each, and the master gain)
 */
export function play(name) {
  const notes = EFFECTS[name];
  if (!notes) return 0;
  stats.events[name] += 1;
  document.body.dataset.lastSound = name;
  const level = volume() / 100;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (level <= 0 || !unlocked || !Context) return 0;
  context = context || new Context();
  if (context.state === "suspended") context.resume();
  const master = context.createGain();
  master.gain.value = level * 0.5;
  master.connect(context.destination);
  let made = 1;
  const start = context.currentTime + 0.02;
  for (const [frequency, at, length, type, loud, glide] of notes) {
    const osc = context.createOscillator();
    const gain = context.createGain();
    const t = start + at;
    osc.type = type;
    osc.frequency.setValueAtTime(frequency, t);
    if (glide) osc.frequency.exponentialRampToValueAtTime(glide, t + length);
    gain.gain.setValueAtTime(0.0001, t);
    gain.gain.exponentialRampToValueAtTime(loud, t + 0.015);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + length);
    osc.connect(gain).connect(master);
    osc.start(t);
    osc.stop(t + length + 0.02);
    made += 2;
  }
  stats.nodes += made;
  return made;
}

/** The volume slider for the page's settings (id "sound-volume"); a change plays a sample. */
export function volumeControl() {
  const input = document.createElement("input");
  Object.assign(input, { type: "range", id: "sound-volume", min: 0, max: 100, step: 10, value: volume() });
  input.title = t("game.volumeTitle");
  input.addEventListener("change", () => { setVolume(input.value); unlock(); play("turn"); });
  const label = document.createElement("label");
  label.className = "anim-setting sound-setting";
  label.title = t("game.volumeTitle");
  label.append(`${t("game.volume")} `, input);
  return label;
}

/**
 * The sounds of one game page: call `update(...)` after each state; it plays what changed since
 * the last call (nothing on the first, so opening a page in mid-game is silent).
 * `turn`: whether this page plays the your-turn effect itself (an online game leaves it to its
 * "Sound on my turn" switch).
 */
export function soundCues({ turn = true } = {}) {
  let seen = null; // log length at the last update
  let wasMine = false;
  let lastSeat = null; // pass-and-play: the seat shown changes at each player's turn
  let hadTunnel = false;
  let finalRound = false;
  return {
    update({ log, mine, seat = 0, tunnel, finalTurnsLeft, over }) {
      const inFinal = finalTurnsLeft !== null && finalTurnsLeft !== undefined && finalTurnsLeft >= 0;
      if (seen === null) {
        seen = log.length; wasMine = mine; lastSeat = seat; hadTunnel = Boolean(tunnel); finalRound = inFinal;
        return;
      }
      const fresh = seen <= log.length ? log.slice(seen) : [];
      seen = log.length;
      const wanted = new Set();
      for (const entry of fresh) {
        if ((entry.notation || "").startsWith("C ")) wanted.add("claim");
        else if (drawKind(entry)) wanted.add("draw");
      }
      if (tunnel && !hadTunnel) wanted.add("tunnel");
      if (inFinal && !finalRound && !over) wanted.add("final");
      else if (turn && mine && (!wasMine || seat !== lastSeat) && !over) wanted.add("turn");
      hadTunnel = Boolean(tunnel);
      finalRound = inFinal;
      wasMine = mine;
      lastSeat = seat;
      for (const name of wanted) play(name);
    },
  };
}
