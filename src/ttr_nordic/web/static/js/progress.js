// A ticket's progress, for the map: the cheapest way between its two cities over your own routes
// (free) and the routes nobody has claimed (their length in cars). This is a picture of the board
// the page already shows, not a rule: the server alone says what may be claimed.

/**
 * The routes of the cheapest connection of cities ``from`` and ``to`` (ids) on ``board``, given
 * ``routeOwner`` (route id → seat or null) and this player's ``seat``: ``built`` are the player's
 * routes on it, ``missing`` the unclaimed ones still to claim, ``cars`` their total length.
 * ``null`` when no such connection is left.
 *
 * Example: ``ticketPath(board, view.route_owner, 0, 3, 17)`` → ``{built: [12], missing: [40, 41], cars: 5}``.
 */
export function ticketPath(board, routeOwner, seat, from, to) {
  const adjacent = board.cities.map(() => []);
  for (const r of board.routes) {
    const owner = routeOwner[r.id];
    if (owner !== null && owner !== undefined && owner !== seat) continue;
    const cost = owner === seat ? 0 : r.length;
    adjacent[r.a].push([r.b, r, cost]);
    adjacent[r.b].push([r.a, r, cost]);
  }
  // Dijkstra (39 cities: a plain scan for the nearest is fast enough); ties prefer fewer routes.
  const dist = board.cities.map(() => Infinity), hops = board.cities.map(() => Infinity);
  const via = board.cities.map(() => null);
  const done = board.cities.map(() => false);
  dist[from] = 0;
  hops[from] = 0;
  for (;;) {
    let city = -1;
    for (let i = 0; i < dist.length; i++) {
      if (!done[i] && dist[i] < Infinity && (city < 0 || dist[i] < dist[city])) city = i;
    }
    if (city < 0 || city === to) break;
    done[city] = true;
    for (const [next, route, cost] of adjacent[city]) {
      const d = dist[city] + cost, h = hops[city] + 1;
      if (d < dist[next] || (d === dist[next] && h < hops[next])) {
        dist[next] = d;
        hops[next] = h;
        via[next] = [city, route];
      }
    }
  }
  if (dist[to] === Infinity) return null;
  const built = [], missing = [];
  for (let city = to; via[city]; city = via[city][0]) {
    const route = via[city][1];
    (routeOwner[route.id] === seat ? built : missing).push(route.id);
  }
  return { built, missing, cars: dist[to] };
}
