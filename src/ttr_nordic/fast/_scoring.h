/* Final scoring (R9): tickets by union-find, Globetrotter, the longest trail for tie-breaks.
 * Part of the compiled core: included by _core.c, in the order given there. */
/* ---------------------------------------------------------------------------- scoring */

typedef struct {
    int route_points[MAX_PLAYERS], ticket_points[MAX_PLAYERS], completed[MAX_PLAYERS], failed[MAX_PLAYERS];
    int globetrotter[MAX_PLAYERS], longest[MAX_PLAYERS], total[MAX_PLAYERS];
    int n_winners, winners[MAX_PLAYERS];
    int decided_by; /* 0 score, 1 tickets, 2 longest path, 3 shared */
    uint64_t ticket_done[MAX_PLAYERS];
} Result;

static int uf_find(int *parent, int x) {
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

typedef struct {
    int n_edges;
    int ea[MAX_ROUTES], eb[MAX_ROUTES], el[MAX_ROUTES];
    int used[MAX_ROUTES];
    int best;
    int adj[MAX_CITIES][MAX_ROUTES];
    int n_adj[MAX_CITIES];
} Trail;

static void trail_walk(Trail *t, int city, int total) {
    if (total > t->best) t->best = total;
    for (int i = 0; i < t->n_adj[city]; i++) {
        int e = t->adj[city][i];
        if (!t->used[e]) {
            t->used[e] = 1;
            trail_walk(t, t->ea[e] == city ? t->eb[e] : t->ea[e], total + t->el[e]);
            t->used[e] = 0;
        }
    }
}

static int longest_trail(const State *s, const BoardT *board, int p) {
    static __thread Trail t;
    t.n_edges = 0;
    t.best = 0;
    memset(t.n_adj, 0, sizeof(t.n_adj));
    for (int rid = 0; rid < board->n_routes; rid++) {
        if (s->owner[rid] != p) continue;
        int e = t.n_edges++;
        const RouteT *r = &board->routes[rid];
        t.ea[e] = r->a;
        t.eb[e] = r->b;
        t.el[e] = r->length;
        t.used[e] = 0;
        t.adj[r->a][t.n_adj[r->a]++] = e;
        if (r->b != r->a) t.adj[r->b][t.n_adj[r->b]++] = e;
    }
    for (int c = 0; c < board->n_cities; c++)
        if (t.n_adj[c]) trail_walk(&t, c, 0);
    return t.best;
}

/* Scores the game as it stands (R9); the longest trails only when ``all_paths`` or a tie needs them. */
static void score(const State *s, const BoardT *board, Result *res, int all_paths) {
    memset(res, 0, sizeof(Result));
    int n = s->players, most = 0;
    for (int p = 0; p < n; p++) {
        int parent[MAX_CITIES];
        for (int c = 0; c < board->n_cities; c++) parent[c] = c;
        for (int rid = 0; rid < board->n_routes; rid++) {
            if (s->owner[rid] != p) continue;
            int ra = uf_find(parent, board->routes[rid].a), rb = uf_find(parent, board->routes[rid].b);
            if (ra != rb) parent[ra] = rb;
        }
        res->route_points[p] = s->scores[p];
        for (int i = 0; i < s->n_tickets[p]; i++) {
            const TicketT *t = &board->tickets[s->tickets[p][i]];
            if (uf_find(parent, t->a) == uf_find(parent, t->b)) {
                res->completed[p]++;
                res->ticket_points[p] += t->points;
                res->ticket_done[p] |= (uint64_t)1 << i;
            } else {
                res->failed[p]++;
                res->ticket_points[p] -= t->points;
            }
        }
        if (res->completed[p] > most) most = res->completed[p];
        res->longest[p] = -1;
    }
    int best = -100000;
    for (int p = 0; p < n; p++) {
        res->globetrotter[p] = most > 0 && res->completed[p] == most ? 10 : 0;
        res->total[p] = res->route_points[p] + res->ticket_points[p] + res->globetrotter[p];
        if (res->total[p] > best) best = res->total[p];
        if (all_paths) res->longest[p] = longest_trail(s, board, p);
    }
    int tied[MAX_PLAYERS], n_tied = 0;
    for (int p = 0; p < n; p++)
        if (res->total[p] == best) tied[n_tied++] = p;
    res->decided_by = 0;
    if (n_tied > 1) {
        int best_t = -1, m = 0;
        for (int i = 0; i < n_tied; i++)
            if (res->completed[tied[i]] > best_t) best_t = res->completed[tied[i]];
        for (int i = 0; i < n_tied; i++)
            if (res->completed[tied[i]] == best_t) tied[m++] = tied[i];
        n_tied = m;
        res->decided_by = 1;
    }
    if (n_tied > 1) {
        int best_l = -1, m = 0;
        for (int i = 0; i < n_tied; i++) {
            int q = tied[i];
            if (res->longest[q] < 0) res->longest[q] = longest_trail(s, board, q);
            if (res->longest[q] > best_l) best_l = res->longest[q];
        }
        for (int i = 0; i < n_tied; i++)
            if (res->longest[tied[i]] == best_l) tied[m++] = tied[i];
        n_tied = m;
        res->decided_by = n_tied > 1 ? 3 : 2;
    }
    res->n_winners = n_tied;
    memcpy(res->winners, tied, (size_t)n_tied * sizeof(int));
}
