// Zoom and pan of the board: the mouse wheel (around the pointer), dragging, two-finger pinch,
// buttons (+, −, fit) and keys (+, −, 0; arrows while the map has focus). Only the SVG viewBox
// changes, so city names and car letters grow with the zoom.
import { t } from "./i18n.js";
import { el } from "./ui.js";

const MAX_ZOOM = 6;
const STEP = 1.35;

/**
 * Make ``svgRoot`` zoomable inside ``wrap``. Returns {zoomIn, zoomOut, reset, zoom(): number,
 * controls}: ``controls`` is the button bar to put over the map. A drag longer than a few pixels
 * does not count as a click on a route.
 */
export function makeZoomable(svgRoot, wrap) {
  const [x0, y0, w0, h0] = svgRoot.getAttribute("viewBox").split(/\s+/).map(Number);
  let view = { x: x0, y: y0, w: w0, h: h0 };

  function clamp(v) {
    const w = Math.min(w0, Math.max(w0 / MAX_ZOOM, v.w));
    const h = w * (h0 / w0);
    const x = Math.min(x0 + w0 - w, Math.max(x0, v.x));
    const y = Math.min(y0 + h0 - h, Math.max(y0, v.y));
    return { x, y, w, h };
  }
  function apply(v) {
    view = clamp(v);
    svgRoot.setAttribute("viewBox", `${view.x.toFixed(1)} ${view.y.toFixed(1)} ${view.w.toFixed(1)} ${view.h.toFixed(1)}`);
    const z = w0 / view.w;
    svgRoot.dataset.zoom = z.toFixed(2);
    out.disabled = z <= 1.001;
    fit.disabled = z <= 1.001;
    inn.disabled = z >= MAX_ZOOM - 0.001;
    // The map sizes its letters and the page hides its tooltip on this.
    svgRoot.dispatchEvent(new CustomEvent("viewchange"));
  }
  /** The board point under client pixel (cx, cy). */
  function boardPoint(cx, cy) {
    const box = svgRoot.getBoundingClientRect();
    // preserveAspectRatio "xMidYMid meet": the drawing is centred and scaled uniformly.
    const scale = Math.min(box.width / view.w, box.height / view.h);
    const dx = (box.width - view.w * scale) / 2, dy = (box.height - view.h * scale) / 2;
    return { x: view.x + (cx - box.left - dx) / scale, y: view.y + (cy - box.top - dy) / scale, scale };
  }
  function zoomAt(factor, cx, cy) {
    const p = cx === undefined ? { x: view.x + view.w / 2, y: view.y + view.h / 2 } : boardPoint(cx, cy);
    const w = view.w / factor, h = view.h / factor;
    const fx = (p.x - view.x) / view.w, fy = (p.y - view.y) / view.h;
    apply({ x: p.x - fx * w, y: p.y - fy * h, w, h });
  }
  function panBy(dx, dy) { apply({ ...view, x: view.x + dx, y: view.y + dy }); }

  const inn = el("button", { type: "button", class: "zoom-btn", id: "zoom-in", "aria-label": t("map.zoomIn"), text: "+",
    onclick: () => zoomAt(STEP) });
  const out = el("button", { type: "button", class: "zoom-btn", id: "zoom-out", "aria-label": t("map.zoomOut"), text: "−",
    onclick: () => zoomAt(1 / STEP) });
  const fit = el("button", { type: "button", class: "zoom-btn", id: "zoom-fit", "aria-label": t("map.zoomFit"),
    text: "⤢", onclick: () => apply({ x: x0, y: y0, w: w0, h: h0 }) });
  const controls = el("div", { class: "zoom-controls", role: "group", "aria-label": t("map.zoom") }, inn, out, fit);

  svgRoot.addEventListener("wheel", (e) => {
    e.preventDefault();
    zoomAt(e.deltaY < 0 ? 1.15 : 1 / 1.15, e.clientX, e.clientY);
  }, { passive: false });

  // Drag to pan; two pointers pinch. A pointer that moved suppresses the click that follows.
  const pointers = new Map();
  let moved = false;
  let pinch = null;
  svgRoot.addEventListener("pointerdown", (e) => {
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    moved = false;
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      pinch = { dist: Math.hypot(a.x - b.x, a.y - b.y), cx: (a.x + b.x) / 2, cy: (a.y + b.y) / 2 };
    }
  });
  svgRoot.addEventListener("pointermove", (e) => {
    const last = pointers.get(e.pointerId);
    if (!last) return;
    const now = { x: e.clientX, y: e.clientY };
    if (pointers.size === 1) {
      const { scale } = boardPoint(now.x, now.y);
      if (moved || Math.hypot(now.x - last.x, now.y - last.y) > 4) {
        if (!moved) svgRoot.setPointerCapture?.(e.pointerId);
        moved = true;
        panBy(-(now.x - last.x) / scale, -(now.y - last.y) / scale);
        pointers.set(e.pointerId, now);
      }
    } else if (pointers.size === 2 && pinch) {
      pointers.set(e.pointerId, now);
      const [a, b] = [...pointers.values()];
      const dist = Math.hypot(a.x - b.x, a.y - b.y);
      if (dist > 0 && pinch.dist > 0) zoomAt(dist / pinch.dist, pinch.cx, pinch.cy);
      pinch.dist = dist;
      moved = true;
    }
  });
  const end = (e) => { pointers.delete(e.pointerId); if (pointers.size < 2) pinch = null; };
  svgRoot.addEventListener("pointerup", end);
  svgRoot.addEventListener("pointercancel", end);
  svgRoot.addEventListener("click", (e) => { if (moved) { e.stopPropagation(); e.preventDefault(); moved = false; } }, true);
  svgRoot.style.touchAction = "none";

  // Arrows pan while focus is on the map (a route or a city); + and − zoom from anywhere.
  svgRoot.addEventListener("keydown", (e) => {
    const d = view.w / 8;
    const moves = { ArrowLeft: [-d, 0], ArrowRight: [d, 0], ArrowUp: [0, -d], ArrowDown: [0, d] };
    if (moves[e.key] && w0 / view.w > 1.001) { e.preventDefault(); panBy(...moves[e.key]); }
  });

  apply(view);
  void wrap;
  return {
    controls,
    zoomIn: () => zoomAt(STEP),
    zoomOut: () => zoomAt(1 / STEP),
    reset: () => apply({ x: x0, y: y0, w: w0, h: h0 }),
    zoom: () => w0 / view.w,
    /** Bring board point (x, y) into view (keeps the zoom). */
    show: (x, y) => { if (x < view.x || x > view.x + view.w || y < view.y || y > view.y + view.h) apply({ ...view, x: x - view.w / 2, y: y - view.h / 2 }); },
  };
}
