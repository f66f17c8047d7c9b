// The SVG board: Natural Earth land (pre-projected, land.json) and the board data, projected here
// with the same orthographic projection (scripts/make_land.py). A custom board (board.custom, from
// a rule variant) has no land: its cities are placed by their own x/y, scaled into a frame.
import { CARD_COLORS, CARD_LETTERS, DARK_CARDS, PLAYER_COLORS, PLAYER_INK, PLAYER_MARKS, keyActivate, svg } from "./ui.js";
import { language, t } from "./i18n.js";
import { colourName } from "./words.js";

const cache = new Map();
/** The board at `url` (the official one by default) and, for the official board only, its land. */
export async function loadMapData(url = "/api/board") {
  if (!cache.has(url)) {
    cache.set(url, fetch(url).then((r) => r.json()).then(async (board) => ({
      board,
      land: board.custom ? null : await fetch("/static/land.json").then((r) => r.json()),
    })));
  }
  return cache.get(url);
}

// A custom board's frame: the cities' x/y scaled so that a route's cars fill the space between its
// cities as on the official board (the median route gets CAR_SPACE pixels per car), then framed.
const CAR_SPACE = 46, MARGIN = 60;
function customFrame(board) {
  const xs = board.cities.map((c) => c.x), ys = board.cities.map((c) => c.y);
  const left = Math.min(...xs), top = Math.min(...ys);
  const spanX = Math.max(...xs) - left || 1, spanY = Math.max(...ys) - top || 1;
  const perCar = board.routes.map((r) => {
    const a = board.cities[r.a], b = board.cities[r.b];
    return Math.hypot(a.x - b.x, a.y - b.y) / r.length;
  }).sort((p, q) => p - q);
  const median = perCar[Math.floor(perCar.length / 2)] || 1;
  const scale = CAR_SPACE / median;
  return {
    width: spanX * scale + 2 * MARGIN,
    height: spanY * scale + 2 * MARGIN,
    place: (c) => [(c.x - left) * scale + MARGIN, (c.y - top) * scale + MARGIN],
  };
}

function projector(p) {
  const rad = Math.PI / 180;
  const la0 = p.lat0 * rad, lo0 = p.lon0 * rad, k = p.radius_km * p.px_per_km;
  return (lat, lon) => {
    const la = lat * rad, lo = lon * rad;
    const x = Math.cos(la) * Math.sin(lo - lo0);
    const y = Math.cos(la0) * Math.sin(la) - Math.sin(la0) * Math.cos(la) * Math.cos(lo - lo0);
    return [x * k + p.offset_x, -y * k + p.offset_y];
  };
}

const CITY_R = 7;
const CAR_W = 10;
const TWIN_GAP = 5.8;

// A claimed route's cars are little train cars: a row of windows in the owner's ink (PLAYER_INK,
// which reads on the owner's colour) with a door in the middle, where the owner's number sits
// when zoomed in, and couplings in the gaps between the cars. Car units: x along the track.
const WINDOW = { w: 4, h: 4.6, gap: 1.6, end: 2, door: 3 };

/**
 * The windows of a train car ``length`` board units long, as one SVG path in the car's own frame
 * (centred on 0,0, x along the track): as many as fit on each side of a middle door, or evenly
 * spaced on a car too short for a door.
 *
 * Example: ``carWindows(20)`` → ``"M3.0 -2.3h4v4.6h-4z M-7.0 -2.3h4v4.6h-4z"`` (a window each side of
 * the door); ``carWindows(8)`` → ``"M-2.0 -2.3h4v4.6h-4z"`` (one, in the middle).
 */
export function carWindows(length) {
  const step = WINDOW.w + WINDOW.gap;
  const top = (-WINDOW.h / 2).toFixed(1);
  const pane = (x) => `M${x.toFixed(1)} ${top}h${WINDOW.w}v${WINDOW.h}h${-WINDOW.w}z`;
  const perSide = Math.floor((length / 2 - WINDOW.door - WINDOW.end + WINDOW.gap) / step);
  const panes = [];
  if (perSide >= 1) {
    for (let i = 0; i < perSide; i++) {
      const x = WINDOW.door + i * step;
      panes.push(pane(x), pane(-x - WINDOW.w));
    }
  } else {
    const count = Math.max(1, Math.floor((length - 2 * WINDOW.end + WINDOW.gap) / step));
    const span = count * step - WINDOW.gap;
    for (let i = 0; i < count; i++) panes.push(pane(-span / 2 + i * step));
  }
  return panes.join(" ");
}

// The colour-blind patterns of the cars, the same as the cards' (ui.js and style.css): each is
// drawn in the car's own frame (x along the track), so it turns with the route. At the default
// zoom of a 1366×768 screen a period of 6 is about 3 px: a texture that reads where letters
// cannot (the cars are 5 px thick there).
// colour → [tile width, tile height, the marks, their colour]
const PATTERNS = {
  purple: [6, 6, "M-1.5 7.5 L7.5 -1.5 M-1.5 1.5 L1.5 -1.5 M4.5 7.5 L7.5 4.5", "rgba(255,255,255,.62)"], // "/" stripes
  red: [6, 6, "M-1.5 -1.5 L7.5 7.5 M4.5 -1.5 L7.5 1.5 M-1.5 4.5 L1.5 7.5", "rgba(255,255,255,.62)"], // "\\" stripes
  blue: [6, 5, "M0 2.5 H6", "rgba(255,255,255,.62)"], // stripes along the track
  green: [5, 6, "M2.5 0 V6", "rgba(255,255,255,.62)"], // stripes across the track
  orange: [5, 5, "dot", "rgba(255,255,255,.85)"], // light dots
  yellow: [5, 5, "dot", "rgba(0,0,0,.45)"], // dark dots
};

function patternDefs() {
  return Object.entries(PATTERNS).map(([color, [w, h, marks, ink]]) => svg("pattern", { id: `cb-${color}`, width: w,
    height: h, patternUnits: "userSpaceOnUse" }, svg("rect", { width: w, height: h, fill: CARD_COLORS[color] }),
  marks === "dot" ? svg("circle", { cx: w / 2, cy: h / 2, r: 1.3, fill: ink })
    : svg("path", { d: marks, stroke: ink, "stroke-width": 1.7, fill: "none" })));
}
export const PATTERNED = new Set(Object.keys(PATTERNS));

// City names are sized for the screen, not the board: at the default zoom a name is LABEL_PX
// pixels tall (a little less on a phone), whatever the window, and grows with the zoom from there.
// Each name is then put beside its city where it covers no other name and no other city.
const LABEL_PX = { wide: 13, narrow: 11.5 };
// The colour-blind letters are shown only where they are at least this tall on the screen;
// below it the cars' patterns carry the colour alone.
const LETTER_MIN_PX = 9;
const LETTER_SIZE = 9.5;
// The official board's frame: the cities' bounds and this margin (board units) for their names.
const FRAME_MARGIN = { x: 40, top: 36, bottom: 44 };

/**
 * Build the board SVG. Returns an object to update claims and highlights.
 * handlers: {onRoute(routeId), onCity(cityId)}
 */
export function buildMap(data, handlers = {}) {
  const { board, land } = data;
  const frame = land ? null : customFrame(board);
  const W = land ? land.width : frame.width, H = land ? land.height : frame.height;
  const project = land ? projector(land.projection) : null;
  const cityPos = board.cities.map((c) => (land ? project(c.lat, c.lon) : frame.place(c)));
  // The view is cropped to the land that is played: the cities and room for their names.
  const view = land ? playedFrame(cityPos) : { x: 0, y: 0, w: W, h: H };
  const title = land ? t("map.title") : t("map.titleCustom", { board: board.name || "" }).replace("  ", " ");
  const root = svg("svg", { viewBox: `${view.x} ${view.y} ${view.w} ${view.h}`, class: `board${land ? "" : " custom"}`,
    role: "group", "aria-label": title, preserveAspectRatio: "xMidYMid meet" });
  const defs = svg("defs", {},
    svg("linearGradient", { id: "loco-fill", x1: 0, y1: 0, x2: 1, y2: 1 },
      ...["#d62828", "#f28c28", "#f2c500", "#2f9e44", "#2a6fdb", "#8e44ad"].map((c, i) =>
        svg("stop", { offset: `${(i / 5) * 100}%`, "stop-color": c }))),
    ...patternDefs(),
    svg("pattern", { id: "sea-lines", width: 14, height: 14, patternUnits: "userSpaceOnUse" },
      svg("path", { d: "M0 7 Q3.5 5 7 7 T14 7", fill: "none", stroke: "#b9d4e6", "stroke-width": 0.6 })));
  root.append(defs);
  root.append(svg("rect", { x: 0, y: 0, width: W, height: H, class: "sea" }));
  root.append(svg("rect", { x: 0, y: 0, width: W, height: H, fill: "url(#sea-lines)", opacity: 0.6 }));
  const landLayer = svg("g", { class: "land" });
  if (land) {
    // Countries are named in the page's language (Intl knows them by their ISO code).
    let regions = null;
    try { regions = new Intl.DisplayNames([language()], { type: "region" }); } catch { /* an old browser: English */ }
    for (const c of land.countries) {
      landLayer.append(svg("path", { d: c.d, class: c.nordic ? "nordic" : "other", "data-country": c.code },
        svg("title", { text: (regions && regions.of(c.code)) || c.name })));
    }
  } else {
    // One plain island under a custom board's cities: no real-world outline is implied.
    landLayer.append(svg("rect", { x: MARGIN / 3, y: MARGIN / 3, width: W - (2 * MARGIN) / 3,
      height: H - (2 * MARGIN) / 3, rx: 28, class: "nordic" }));
  }
  root.append(landLayer);

  const routeLayer = svg("g", { class: "routes" });
  // The colour-blind letters sit in a layer of their own, outside the route buttons, so that a
  // route's accessible name (its tooltip) is all the text a button holds.
  const letterLayer = svg("g", { class: "car-letters", "aria-hidden": "true" });
  const cityLayer = svg("g", { class: "cities" });
  const labelLayer = svg("g", { class: "labels" });
  const routeNodes = new Map();
  const cityNodes = new Map();

  for (const r of board.routes) {
    const [ax, ay] = cityPos[r.a], [bx, by] = cityPos[r.b];
    const dx = bx - ax, dy = by - ay, dist = Math.hypot(dx, dy);
    const ux = dx / dist, uy = dy / dist, nx = -uy, ny = ux;
    let off = 0;
    if (r.twin !== null && r.twin !== undefined) off = r.id < r.twin ? -TWIN_GAP : TWIN_GAP;
    // keep the offset direction independent of which end is "a"
    const sx = ax + nx * off, sy = ay + ny * off;
    const avail = dist - 2 * (CITY_R + 2.5);
    const gap = 2.5;
    let car = Math.min(38, (avail - gap * (r.length - 1)) / r.length);
    car = Math.max(car, 8);
    const used = car * r.length + gap * (r.length - 1);
    const start = (dist - used) / 2;
    const angle = (Math.atan2(dy, dx) * 180) / Math.PI;
    const textAngle = angle > 90 || angle < -90 ? angle + 180 : angle;
    const color = r.color;
    const label = `${r.name}: ${r.length} ${colourName(color)}${r.kind === "tunnel" ? ` ${t("map.tunnel")}` : ""}` +
      `${r.ferry_locomotives ? ` ${t("map.ferryLabel", { count: r.ferry_locomotives })}` : ""}`;
    // The tooltip and the accessible name say the same (a name must contain the visible text).
    const name = `${label} — ${t("map.points", { count: r.points })}`;
    const g = svg("g", { class: `route kind-${r.kind}`, "data-route": r.id, "data-code": r.code,
      tabindex: 0, role: "button", "aria-label": name });
    g.append(svg("title", { text: name }));
    // A wide band behind the cars: the mark of a route you can claim now, or of an opponent's last move.
    const x1 = (sx + ux * start).toFixed(1), y1 = (sy + uy * start).toFixed(1);
    const x2 = (sx + ux * (start + used)).toFixed(1), y2 = (sy + uy * (start + used)).toFixed(1);
    g.append(svg("path", { d: `M${x1} ${y1} L${x2} ${y2}`, class: "halo" }));
    const cars = [];
    for (let i = 0; i < r.length; i++) {
      const t = start + i * (car + gap) + car / 2;
      const cx = sx + ux * t, cy = sy + uy * t;
      const loco = i < r.ferry_locomotives;
      const tr = `translate(${cx.toFixed(1)} ${cy.toFixed(1)}) rotate(${angle.toFixed(1)})`;
      const rect = svg("rect", { x: (-car / 2).toFixed(1), y: -CAR_W / 2, width: car.toFixed(1), height: CAR_W,
        rx: 1.8, transform: tr, class: `car car-${color}${loco ? " loco" : ""}`, fill: CARD_COLORS[color] });
      const letterColor = DARK_CARDS.has(color) ? "#fff" : "#111";
      const text = svg("text", { transform: `translate(${cx.toFixed(1)} ${cy.toFixed(1)}) rotate(${textAngle.toFixed(1)})`,
        class: "car-letter cb", fill: letterColor, text: CARD_LETTERS[color], "data-route": r.id });
      g.append(rect);
      letterLayer.append(text);
      if (loco) {
        g.append(svg("rect", { x: -3, y: -3, width: 6, height: 6, transform: `${tr} rotate(45)`,
          class: "loco-mark", fill: "url(#loco-fill)" }));
      }
      cars.push({ rect, text, transform: tr, length: car });
    }
    g.append(svg("path", { d: `M${(sx + ux * start).toFixed(1)} ${(sy + uy * start).toFixed(1)} ` +
      `L${(sx + ux * (start + used)).toFixed(1)} ${(sy + uy * (start + used)).toFixed(1)}`, class: "hit" }));
    if (handlers.onHover) {
      g.addEventListener("pointerenter", (e) => handlers.onHover(r.id, e.clientX, e.clientY));
      g.addEventListener("pointerleave", () => handlers.onHover(null));
      g.addEventListener("focus", () => { const b = g.getBoundingClientRect(); handlers.onHover(r.id, b.right, b.top); });
      g.addEventListener("blur", () => handlers.onHover(null));
    }
    if (handlers.onRoute) {
      g.addEventListener("click", () => handlers.onRoute(r.id));
      keyActivate(g, () => handlers.onRoute(r.id));
    }
    routeLayer.append(g);
    routeNodes.set(r.id, { g, cars, route: r, track: `M${x1} ${y1} L${x2} ${y2}`, train: null });
  }

  board.cities.forEach((c, i) => {
    const [x, y] = cityPos[i];
    const node = svg("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: CITY_R, class: "city", "data-city": c.id,
      tabindex: 0, role: "button", "aria-label": c.english_name && c.english_name !== c.name && language() === "en" ? `${c.name} (${c.english_name})` : c.name }, svg("title", { text: c.name }));
    if (handlers.onCity) {
      node.addEventListener("click", () => handlers.onCity(c.id));
      keyActivate(node, () => handlers.onCity(c.id));
    }
    cityLayer.append(node);
    cityNodes.set(c.id, node);
    labelLayer.append(svg("text", { x: x.toFixed(1), y: (y - 11).toFixed(1), "text-anchor": "start",
      class: "city-label", "data-city": c.id, text: c.name }));
  });
  root.append(routeLayer, letterLayer, cityLayer, labelLayer);

  // Screen pixels per board unit at the default zoom (the whole frame in view), and now.
  const scaleAt = (w, h) => { const b = root.getBoundingClientRect(); return Math.min(b.width / w, b.height / h); };
  let laidFor = 0;
  /** Size and place the city names for the board's size on the screen now (again after a resize). */
  function layoutLabels() {
    const scale0 = scaleAt(view.w, view.h);
    if (!(scale0 > 0)) return;
    const px = window.matchMedia("(max-width: 700px)").matches ? LABEL_PX.narrow : LABEL_PX.wide;
    const size = Math.max(12.5, px / scale0);
    if (Math.abs(size - laidFor) < 0.05) return;
    laidFor = size;
    placeLabels(labelLayer, cityPos, view, size);
    showLetters();
  }
  /** Letters only where they are readable at the present zoom; the patterns carry the colour below. */
  function showLetters() {
    const [, , w, h] = root.getAttribute("viewBox").split(/\s+/).map(Number);
    root.classList.toggle("letters-small", scaleAt(w, h) * LETTER_SIZE < LETTER_MIN_PX);
  }
  root.addEventListener("viewchange", showLetters);
  new ResizeObserver(() => requestAnimationFrame(layoutLabels)).observe(root);

  /** A route's train, made the first time it is claimed: couplings under the cars, windows on them. */
  function dressTrain(node) {
    const { cars, track } = node;
    cars[0].rect.before(svg("path", { d: track, class: "car-coupling" }));
    const windows = cars.map(({ rect, transform, length }, index) => {
      const pane = svg("path", { d: carWindows(length), transform, class: "car-windows" });
      pane.style.setProperty("--car", index);
      rect.after(pane);
      return pane;
    });
    node.train = { windows };
  }

  function setOwners(routeOwner) {
    for (const [id, node] of routeNodes) {
      const { g, cars, route } = node;
      const owner = routeOwner ? routeOwner[id] : null;
      g.classList.toggle("claimed", owner !== null && owner !== undefined);
      if (owner !== null && owner !== undefined) {
        if (!node.train) dressTrain(node);
        if (g.dataset.owner !== String(owner)) {
          for (const pane of node.train.windows) pane.setAttribute("fill", PLAYER_INK[owner]);
        }
        g.dataset.owner = owner;
        for (const [index, { rect, text }] of cars.entries()) {
          rect.style.setProperty("--car", index);
          text.classList.add("claimed");
          rect.setAttribute("fill", PLAYER_COLORS[owner]);
          text.textContent = PLAYER_MARKS[owner];
          text.setAttribute("fill", PLAYER_INK[owner]);
        }
      } else {
        delete g.dataset.owner;
        for (const { rect, text } of cars) {
          text.classList.remove("claimed");
          rect.setAttribute("fill", CARD_COLORS[route.color]);
          text.textContent = CARD_LETTERS[route.color];
          text.setAttribute("fill", DARK_CARDS.has(route.color) ? "#fff" : "#111");
        }
      }
    }
  }

  /** Play the placing animation on these routes' cars (trains put down one by one). */
  function animatePlaced(routeIds) {
    for (const id of routeIds) {
      const node = routeNodes.get(id);
      if (!node) continue;
      node.g.classList.remove("placing");
      void node.g.getBoundingClientRect(); // restart the animation
      node.g.classList.add("placing");
    }
  }

  function setClass(className, routeIds = [], cityIds = []) {
    root.querySelectorAll(`.${className}`).forEach((n) => n.classList.remove(className));
    for (const id of routeIds) routeNodes.get(id)?.g.classList.add(className);
    for (const id of cityIds) cityNodes.get(id)?.classList.add(className);
  }

  return { root, setOwners, setClass, animatePlaced, layoutLabels, routeNodes, cityNodes, board };
}

/** The official board's frame: the cities' bounds with room for their names. */
function playedFrame(cityPos) {
  const xs = cityPos.map(([x]) => x), ys = cityPos.map(([, y]) => y);
  const x = Math.floor(Math.min(...xs) - FRAME_MARGIN.x), y = Math.floor(Math.min(...ys) - FRAME_MARGIN.top);
  return { x, y, w: Math.ceil(Math.max(...xs) + FRAME_MARGIN.x - x), h: Math.ceil(Math.max(...ys) + FRAME_MARGIN.bottom - y) };
}

// Where a name may sit around its city, in order of preference: [dx, dy] of the name box's
// centre, in units of (the box's half width + gap, the box's half height + gap).
const SPOTS = [[1, 0], [-1, 0], [0, -1], [0, 1], [1, -1], [-1, -1], [1, 1], [-1, 1],
  [1, -0.5], [1, 0.5], [-1, -0.5], [-1, 0.5], [0.5, -1], [-0.5, -1], [0.5, 1], [-0.5, 1]];

/**
 * Put each city's name (the ``text.city-label`` nodes of ``layer``, in city order) at ``size``
 * board units where it overlaps no other name, no other city and stays inside ``frame``: cities
 * with the most close neighbours choose first; each tries sixteen spots around its city, then the
 * same spots further out, and takes the least bad one if none is free.
 *
 * Example: ``placeLabels(labelLayer, [[120, 80], [160, 95]], {x: 0, y: 0, w: 400, h: 300}, 18)``.
 */
export function placeLabels(layer, cityPos, frame, size) {
  const texts = [...layer.querySelectorAll("text.city-label")];
  const pad = size * 0.12;
  const metrics = texts.map((t) => {
    t.style.fontSize = `${size.toFixed(2)}px`;
    t.style.strokeWidth = `${(size * 0.24).toFixed(2)}px`;
    t.setAttribute("x", "0");
    t.setAttribute("y", "0");
    const b = t.getBBox();
    return { ox: b.x, oy: b.y, w: b.width, h: b.height };
  });
  const cityR = CITY_R + 1.5;
  const cityBoxes = cityPos.map(([x, y]) => ({ x: x - cityR, y: y - cityR, w: 2 * cityR, h: 2 * cityR }));
  const overlap = (a, b) => Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x)) *
    Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));
  const near = cityPos.map(([x, y]) => cityPos.filter(([u, v]) => Math.hypot(u - x, v - y) < size * 6).length);
  const order = cityPos.map((_, i) => i).sort((a, b) => near[b] - near[a] || a - b);
  const placed = [];
  for (const i of order) {
    const [cx, cy] = cityPos[i];
    const m = metrics[i];
    let best = null;
    for (const reach of [1, 1.6, 2.3, 3.2]) {
      for (const [sx, sy] of SPOTS) {
        const gapX = (CITY_R + 3) * reach + (reach - 1) * m.w * 0.25, gapY = (CITY_R + 2) * reach;
        const midX = cx + sx * (m.w / 2 + gapX) * (Math.abs(sy) === 1 && sx ? 0.75 : 1);
        const midY = cy + sy * (m.h / 2 + gapY);
        const box = { x: midX - m.w / 2 - pad, y: midY - m.h / 2 - pad, w: m.w + 2 * pad, h: m.h + 2 * pad };
        let cost = 0;
        for (const p of placed) cost += overlap(box, p) * 10;
        cityBoxes.forEach((c, j) => { if (j !== i) cost += overlap(box, c) * 4; });
        const outside = m.w * m.h - overlap(box, frame);
        cost += Math.max(0, outside) * 20 + reach * 0.01;
        if (!best || cost < best.cost) best = { cost, box };
      }
      if (best.cost < 1) break;
    }
    placed.push(best.box);
    const t = texts[i];
    t.setAttribute("x", (best.box.x + pad - m.ox).toFixed(1));
    t.setAttribute("y", (best.box.y + pad - m.oy).toFixed(1));
  }
}
