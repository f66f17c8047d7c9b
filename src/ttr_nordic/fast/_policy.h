/* Route Focus in C: ai/baselines.py's RouteFocusAgent and ai/expert.py's LightRouteFocus (the
 * expert's rollout policy), with ai/planning.py's planning, decision for decision the same as
 * the Python agents with the same seed (tests/fast/test_route_focus.py plays them side by side).
 *
 * Included by _core.c after the rules. Every floating-point sum is taken in the Python code's
 * order, and each rng.random() call of the Python agent is one here, in the same place.
 */

#define RF_OWN 0
#define RF_FREE 1
#define RF_BLOCKED 2
#define RF_INF (__builtin_inf())
#define RF_ALPHA 2.0
#define RF_MARGIN 5
#define RF_SIZE_PENALTY 3.0
#define RF_SAFE_SHARE 0.45
#define RF_WANT_DECAY 1.0

typedef struct {
    int routes[MAX_ROUTES], n_routes; /* new routes, in the order planned */
    int use[MAX_ROUTES];              /* tickets whose path needs the route (not own) */
    uint8_t completed[MAX_TICKETS], infeasible[MAX_TICKETS];
    int trains;
} Plan;

typedef struct {
    MT rng;
    int light; /* LightRouteFocus: hand_beta 0, the plan kept while its inputs stand */
    int long_weights;
    int has_plan;
    Plan plan;
    int key_trains, key_player, key_n_tickets;
    uint8_t key_tickets[MAX_TICKETS];
    double key_cost[MAX_ROUTES]; /* Route Focus: the costs the plan was made with */
} Agent;

/* What one decision reads, worked out once (BaselineAgent._context). */
typedef struct {
    const State *s;
    const BoardT *board;
    int me;
    int status[MAX_ROUTES];
    const Plan *plan;
    const Buf *legal;
    int first_claim;                 /* index of the first claim in legal */
    int run_start[MAX_ROUTES], run_n[MAX_ROUTES];
} Ctx;

static void policy_tables(BoardT *b) {
    /* planning.board_tables: train_cost, long_cost, held_slot, adjacency */
    memset(b->n_adj, 0, sizeof(b->n_adj));
    for (int r = 0; r < b->n_routes; r++) {
        RouteT *rt = &b->routes[r];
        double extra = 0.0;
        if (rt->kind == K_FERRY)
            extra = 0.35 * rt->ferry_locos;
        else if (rt->kind == K_TUNNEL)
            extra = 0.3;
        else if (rt->kind == K_SPECIAL)
            extra = 2.0;
        b->train_cost[r] = rt->length + extra;
        b->long_cost[r] = b->train_cost[r] * rt->length / rt->points;
        b->held_slot[r] = (rt->color == GRAY ? LOCO : rt->color) + ((rt->kind == K_FERRY || rt->kind == K_TUNNEL) ? NK : 0);
        b->adj_route[rt->a][b->n_adj[rt->a]] = r;
        b->adj_other[rt->a][b->n_adj[rt->a]++] = rt->b;
        b->adj_route[rt->b][b->n_adj[rt->b]] = r;
        b->adj_other[rt->b][b->n_adj[rt->b]++] = rt->a;
    }
}

static void route_status(const State *s, const BoardT *b, int me, int *status) {
    int trains = s->trains[me], two = s->players == 2;
    for (int r = 0; r < b->n_routes; r++) {
        int holder = s->owner[r], twin = b->routes[r].twin;
        if (holder == me)
            status[r] = RF_OWN;
        else if (holder != -1 || b->routes[r].length > trains ||
                 (twin >= 0 && s->owner[twin] != -1 && (s->owner[twin] == me || two)))
            status[r] = RF_BLOCKED;
        else
            status[r] = RF_FREE;
    }
}

/* hand_costs / costs_for: 0 own, weight (+ beta per missing card) free, INF blocked. */
static void plan_costs(const BoardT *b, const int *status, const int *hand, double beta, int long_weights,
                       double *cost) {
    int held[2 * NK], best = 0;
    for (int k = 0; k < 8; k++) {
        held[k] = hand[k];
        if (hand[k] > best) best = hand[k];
    }
    held[LOCO] = best;
    for (int k = 0; k < NK; k++) held[NK + k] = held[k] + hand[LOCO];
    const double *w = long_weights ? b->long_cost : b->train_cost;
    for (int r = 0; r < b->n_routes; r++) {
        if (status[r] == RF_FREE) {
            int n = b->routes[r].length, h = held[b->held_slot[r]];
            cost[r] = n > h ? w[r] + beta * (n - h) : w[r];
        } else {
            cost[r] = status[r] == RF_OWN ? 0.0 : RF_INF;
        }
    }
}

typedef struct {
    double d;
    int city;
} HeapItem;

static inline int heap_less(HeapItem x, HeapItem y) { return x.d < y.d || (x.d == y.d && x.city < y.city); }

/* planning.dijkstra to target: heapq's order of (distance, city). */
static void dijkstra(const BoardT *b, const double *cost, int source, int target, double *dist, int *via) {
    HeapItem heap[4 * MAX_ROUTES + 8];
    int n = 0;
    for (int c = 0; c < b->n_cities; c++) {
        dist[c] = RF_INF;
        via[c] = -1;
    }
    dist[source] = 0.0;
    heap[n++] = (HeapItem){0.0, source};
    while (n) {
        HeapItem top = heap[0];
        HeapItem last = heap[--n];
        int i = 0;
        for (;;) { /* sift the last item down from the root */
            int l = 2 * i + 1;
            if (l >= n) break;
            int m = l + 1 < n && heap_less(heap[l + 1], heap[l]) ? l + 1 : l;
            if (!heap_less(heap[m], last)) break;
            heap[i] = heap[m];
            i = m;
        }
        if (n) heap[i] = last;
        if (top.d > dist[top.city]) continue;
        if (top.city == target) break;
        for (int k = 0; k < b->n_adj[top.city]; k++) {
            int rid = b->adj_route[top.city][k], other = b->adj_other[top.city][k];
            double nd = top.d + cost[rid];
            if (nd < dist[other]) {
                dist[other] = nd;
                via[other] = rid;
                int j = n++;
                HeapItem item = {nd, other};
                while (j > 0 && heap_less(item, heap[(j - 1) / 2])) {
                    heap[j] = heap[(j - 1) / 2];
                    j = (j - 1) / 2;
                }
                heap[j] = item;
            }
        }
    }
}

/* planning._plan_onto: add tickets to the plan in order; returns the budget left. */
static double plan_onto(const BoardT *b, const int *status, double *cost, Plan *plan, const int *tickets, int n_tickets,
                        double budget) {
    double dist[MAX_CITIES];
    int via[MAX_CITIES];
    for (int i = 0; i < n_tickets; i++) {
        int t = tickets[i], a = b->tickets[t].a, z = b->tickets[t].b;
        dijkstra(b, cost, a, z, dist, via);
        if (dist[z] == RF_INF) {
            plan->infeasible[t] = 1;
            continue;
        }
        int path[MAX_ROUTES], len = 0, city = z;
        while (city != a) {
            int rid = via[city];
            path[len++] = rid;
            city = b->routes[rid].a == city ? b->routes[rid].b : b->routes[rid].a;
        }
        int needed[MAX_ROUTES], n_needed = 0, fresh[MAX_ROUTES], n_fresh = 0, trains = 0;
        for (int k = len - 1; k >= 0; k--) { /* the path from a to z */
            int r = path[k];
            if (status[r] != RF_OWN) {
                needed[n_needed++] = r;
                if (cost[r] > 0.0) {
                    fresh[n_fresh++] = r;
                    trains += b->routes[r].length;
                }
            }
        }
        if (trains > budget) {
            plan->infeasible[t] = 1;
            continue;
        }
        if (!n_needed) plan->completed[t] = 1;
        for (int k = 0; k < n_needed; k++) plan->use[needed[k]]++;
        for (int k = 0; k < n_fresh; k++) {
            int r = fresh[k];
            plan->routes[plan->n_routes++] = r;
            cost[r] = 0.0;
            if (b->routes[r].twin >= 0) cost[b->routes[r].twin] = RF_INF;
        }
        plan->trains += trains;
        budget -= trains;
    }
    return budget;
}

/* BaselineAgent._order: most valuable first, then by id. */
static int order_tickets(const BoardT *b, const uint8_t *tickets, int n, int *out) {
    for (int i = 0; i < n; i++) {
        int t = tickets[i], j = i - 1;
        while (j >= 0 && (b->tickets[out[j]].points < b->tickets[t].points ||
                          (b->tickets[out[j]].points == b->tickets[t].points && out[j] > t))) {
            out[j + 1] = out[j];
            j--;
        }
        out[j + 1] = t;
    }
    return n;
}

static int opponent_trains(const State *s, int me) {
    int best = 1 << 30;
    for (int q = 0; q < s->players; q++)
        if (q != me && s->trains[q] < best) best = s->trains[q];
    return best;
}

static int train_budget(const State *s, int me) {
    int mine = s->trains[me], others = opponent_trains(s, me) + hand_sum(s->hands[me]) / 2 + 2;
    return mine < others ? mine : others;
}

static int most_held_color(const int *counts) {
    int best = 0, color = 0;
    for (int c = 0; c < 8; c++)
        if (counts[c] > best) best = counts[c], color = c;
    return color;
}

/* planning.reserved_kinds */
static void reserved_kinds(const BoardT *b, const int *routes, int n, const int *hand, int *reserved) {
    int rem[NK];
    memcpy(rem, hand, sizeof(rem));
    memset(reserved, 0, NK * sizeof(int));
    for (int i = 0; i < n; i++) {
        const RouteT *r = &b->routes[routes[i]];
        int len = r->length, color = r->color == GRAY ? most_held_color(rem) : r->color;
        int locos = r->kind == K_FERRY ? r->ferry_locos : 0;
        int use = rem[color] < len - locos ? rem[color] : len - locos;
        rem[color] -= use;
        reserved[color] += use;
        if (r->kind == K_FERRY || r->kind == K_TUNNEL) {
            int cap = r->kind == K_FERRY ? locos : (len - use > 0 ? len - use : 0);
            int loco_use = rem[LOCO] < cap ? rem[LOCO] : cap;
            rem[LOCO] -= loco_use;
            reserved[LOCO] += loco_use;
        }
    }
}

/* planning.payment_cost */
static double payment_cost(const int *pay, const int *reserved) {
    int colors = 0, mins = 0;
    for (int c = 0; c < 8; c++) {
        colors += pay[c];
        mins += pay[c] < reserved[c] ? pay[c] : reserved[c];
    }
    double total = (double)colors + 1.5 * mins;
    if (pay[LOCO]) total += pay[LOCO] * (2.5 + (reserved[LOCO] ? 1.0 : 0.0));
    return total;
}

/* planning.card_wants */
static void card_wants(const BoardT *b, const int *routes, int n, const int *hand, double decay, double *wants) {
    int rem[NK];
    memcpy(rem, hand, sizeof(rem));
    for (int k = 0; k < NK; k++) wants[k] = 0.0;
    for (int i = 0; i < n; i++) {
        const RouteT *r = &b->routes[routes[i]];
        int len = r->length, color = r->color == GRAY ? most_held_color(rem) : r->color, kind = r->kind;
        int missing_locos = 0, missing, use;
        if (kind == K_REGULAR) {
            use = rem[color] < len ? rem[color] : len;
            rem[color] -= use;
            missing = len - use;
        } else if (kind == K_FERRY) {
            int locos = r->ferry_locos;
            use = rem[color] < len - locos ? rem[color] : len - locos;
            rem[color] -= use;
            int loco_use = rem[LOCO] < locos ? rem[LOCO] : locos;
            rem[LOCO] -= loco_use;
            missing = len - locos - use;
            missing_locos = locos - loco_use;
        } else if (kind == K_TUNNEL) {
            int want = len + 1;
            use = rem[color] < want ? rem[color] : want;
            rem[color] -= use;
            missing = want - use;
        } else {
            use = rem[color] < len ? rem[color] : len;
            rem[color] -= use;
            int spare = hand_sum(rem) / 4, groups = len - use < spare ? len - use : spare;
            missing = len - use - groups;
        }
        if (!missing && !missing_locos) continue;
        double weight = 1.0 / (1.0 + decay * i);
        if (missing) {
            double w = wants[color];
            wants[color] = (w >= weight * 1.0 ? w : weight * 1.0) + 0.02 * missing;
            if ((kind == K_FERRY || kind == K_TUNNEL) && wants[LOCO] < 0.6 * weight) wants[LOCO] = 0.6 * weight;
        }
        if (missing_locos) {
            double w = wants[LOCO];
            wants[LOCO] = (w >= weight * 1.15 ? w : weight * 1.15) + 0.02 * missing_locos;
        }
    }
}

/* ------------------------------------------------------------------ the agent's decisions */

static int rf_targets(const Ctx *c, int *out) {
    /* RouteFocusAgent.targets: the plan's free routes by (-use, -points, id) */
    int n = 0;
    const Plan *p = c->plan;
    for (int i = 0; i < p->n_routes; i++) {
        int r = p->routes[i];
        if (c->status[r] != RF_FREE) continue;
        int j = n - 1;
        for (; j >= 0; j--) {
            int q = out[j];
            int after = p->use[q] < p->use[r] ||
                        (p->use[q] == p->use[r] && (c->board->routes[q].points < c->board->routes[r].points ||
                                                    (c->board->routes[q].points == c->board->routes[r].points && q > r)));
            if (!after) break;
            out[j + 1] = out[j];
        }
        out[j + 1] = r;
        n++;
    }
    return n;
}

static int holding(const BoardT *b, int r, const int *hand) {
    int color = b->routes[r].color;
    if (color < 0) {
        int best = 0;
        for (int k = 0; k < 8; k++)
            if (hand[k] > best) best = hand[k];
        return best;
    }
    return hand[color];
}

static int filler_targets(const Ctx *c, int *out) {
    const BoardT *b = c->board;
    const int *hand = c->s->hands[c->me];
    int trains = c->s->trains[c->me], minimum = 3 < trains ? 3 : trains, n = 0;
    int cand[MAX_ROUTES];
    for (int r = 0; r < b->n_routes; r++) {
        if (c->status[r] != RF_FREE || b->routes[r].length < minimum) continue;
        int j = n - 1;
        for (; j >= 0; j--) {
            int q = cand[j];
            int pq = b->routes[q].points, pr = b->routes[r].points, hq = holding(b, q, hand), hr = holding(b, r, hand);
            int after = pq < pr || (pq == pr && (hq < hr || (hq == hr && q > r)));
            if (!after) break;
            cand[j + 1] = cand[j];
        }
        cand[j + 1] = r;
        n++;
    }
    if (n > 4) n = 4;
    memcpy(out, cand, (size_t)n * sizeof(int));
    return n;
}

static int tunnel_spare(const int *hand, const int *pay) {
    int locos = hand[LOCO] - pay[LOCO], total = 0;
    for (int k = 0; k < NK; k++) total += pay[k];
    if (total == pay[LOCO]) return locos;
    for (int k = 0; k < 8; k++)
        if (pay[k]) return locos + hand[k] - pay[k];
    return locos;
}

/* A route's claims at most: a gray ferry lists one payment per (groups, color cards) of each
 * color held and of none, at most 9 x 10 x 10 = 900 for the 9 spaces CoreBoard allows a route;
 * Murmansk-Lieksa one per color and groups, 8 x 10. */
#define MAX_ROUTE_CLAIMS 1024

/* _payable_claims: indices into legal of the route's claims (a tunnel's with a spare card). */
static int payable_claims(const Ctx *c, int route, int risky, int *out) {
    int n = 0;
    if (c->run_n[route] <= 0) return 0;
    if (c->run_n[route] > MAX_ROUTE_CLAIMS) abort(); /* cannot happen on a board CoreBoard accepts (above) */
    int filter = c->board->routes[route].kind == K_TUNNEL && !risky && c->s->final_turns_left < 0;
    for (int i = c->run_start[route]; i < c->run_start[route] + c->run_n[route]; i++) {
        if (filter) {
            int pay[NK];
            unpack_counts(c->legal->v[i], pay);
            if (tunnel_spare(c->s->hands[c->me], pay) < 1) continue;
        }
        out[n++] = i;
    }
    return n;
}

static int pay_less(const int *x, const int *y) {
    for (int k = 0; k < NK; k++)
        if (x[k] != y[k]) return x[k] < y[k];
    return 0;
}

/* BaselineAgent.claim: the cheapest payable claim, keeping cards for ``others``; -1 if none. */
static int claim_route(const Ctx *c, int route, const int *others, int n_others) {
    int options[MAX_ROUTE_CLAIMS];
    int n = payable_claims(c, route, 0, options);
    if (n == 0) return -1;
    if (n == 1) return options[0];
    int rest[MAX_ROUTES], nr = 0;
    for (int i = 0; i < n_others; i++)
        if (others[i] != route && c->status[others[i]] == RF_FREE) rest[nr++] = others[i];
    int reserved[NK];
    reserved_kinds(c->board, rest, nr, c->s->hands[c->me], reserved);
    int best = -1, best_pay[NK], best_sum = 0;
    double best_cost = 0.0;
    for (int i = 0; i < n; i++) {
        int pay[NK], sum = 0;
        unpack_counts(c->legal->v[options[i]], pay);
        for (int k = 0; k < NK; k++) sum += pay[k];
        double cost = payment_cost(pay, reserved);
        if (best < 0 || cost < best_cost || (cost == best_cost && (sum < best_sum || (sum == best_sum && pay_less(pay, best_pay))))) {
            best = options[i];
            best_cost = cost;
            best_sum = sum;
            memcpy(best_pay, pay, sizeof(pay));
        }
    }
    return best;
}

static void labels_of(const Ctx *c, int *labels) {
    int parent[MAX_CITIES];
    const BoardT *b = c->board;
    for (int x = 0; x < b->n_cities; x++) parent[x] = x;
    for (int r = 0; r < b->n_routes; r++) {
        if (c->status[r] != RF_OWN) continue;
        int ra = uf_find(parent, b->routes[r].a), rb = uf_find(parent, b->routes[r].b);
        if (ra != rb) parent[ra] = rb;
    }
    for (int x = 0; x < b->n_cities; x++) labels[x] = uf_find(parent, x);
}

static int best_immediate_claim(const Ctx *c, Agent *ag, double minimum) {
    const BoardT *b = c->board;
    int any = 0;
    for (int r = 0; r < b->n_routes && !any; r++) any = c->run_n[r] > 0;
    if (!any) return -1;
    int labels[MAX_CITIES], targets[MAX_ROUTES];
    labels_of(c, labels);
    int nt = rf_targets(c, targets);
    int best = -1;
    double best_v = -RF_INF, best_k = 0.0;
    for (int r = 0; r < b->n_routes; r++) {
        if (c->run_n[r] <= 0) continue;
        int la = labels[b->routes[r].a], lb = labels[b->routes[r].b];
        double value = (double)b->routes[r].points;
        if (la != lb)
            for (int i = 0; i < c->s->n_tickets[c->me]; i++) {
                const TicketT *t = &b->tickets[c->s->tickets[c->me][i]];
                int ta = labels[t->a], tb = labels[t->b];
                if ((ta == la && tb == lb) || (ta == lb && tb == la)) value += 2 * t->points;
            }
        if (value < minimum) continue;
        if (value < best_v) {
            int tmp[MAX_ROUTE_CLAIMS];
            if (payable_claims(c, r, 0, tmp)) mt_random(&ag->rng);
            continue;
        }
        int action = claim_route(c, r, targets, nt);
        if (action < 0) continue;
        int pay[NK], sum = 0;
        unpack_counts(c->legal->v[action], pay);
        for (int k = 0; k < NK; k++) sum += pay[k];
        double key = (double)(-sum) - 0.01 * mt_random(&ag->rng);
        if (value > best_v || (value == best_v && key > best_k)) {
            best = action;
            best_v = value;
            best_k = key;
        }
    }
    return best;
}

static void unseen_counts(const State *s, int me, int *unseen) {
    for (int k = 0; k < NK; k++) {
        unseen[k] = FULL_DECK[k] - s->hands[me][k] - s->discard[k];
        for (int q = 0; q < s->players; q++)
            if (q != me) unseen[k] -= s->known[q][k];
    }
    for (int i = 0; i < SLOTS; i++)
        if (s->display[i] >= 0) unseen[s->display[i]]--;
    if (s->tunnel_active) {
        for (int k = 0; k < NK; k++) unseen[k] -= s->t_base[k];
        for (int i = 0; i < s->t_n_revealed; i++) unseen[s->t_revealed[i]]--;
    }
    for (int k = 0; k < NK; k++)
        if (unseen[k] < 0) unseen[k] = 0;
}

/* BaselineAgent.draw: a face-up card the targets want, else a blind draw; -1 if no draw. */
static int draw_card_choice(const Ctx *c, Agent *ag, const int *targets, int nt) {
    int filler[4];
    if (nt == 0) {
        nt = filler_targets(c, filler);
        targets = filler;
    }
    double wants[NK];
    card_wants(c->board, targets, nt, c->s->hands[c->me], RF_WANT_DECAY, wants);
    int best = -1, blind = -1, n_face = 0, faces[SLOTS];
    double best_w = 0.0, best_r = 0.0;
    for (int i = 0; i < c->first_claim; i++) {
        int type = (int)(c->legal->v[i] & 7U);
        if (type == ACT_FACE_UP)
            faces[n_face++] = i;
        else if (type == ACT_BLIND && blind < 0)
            blind = i;
    }
    for (int f = 0; f < n_face; f++) {
        int card = c->s->display[(c->legal->v[faces[f]] >> 3) & 255U];
        if (card < 0) continue;
        double r = mt_random(&ag->rng);
        if (wants[card] > best_w || (wants[card] == best_w && r > best_r)) {
            best = faces[f];
            best_w = wants[card];
            best_r = r;
        }
    }
    int unseen[NK], total = 0;
    unseen_counts(c->s, c->me, unseen);
    double weighted = 0.0;
    for (int k = 0; k < NK; k++) {
        total += unseen[k];
        weighted += unseen[k] * wants[k];
    }
    double blind_value = total ? weighted / total : 0.0;
    if (best >= 0 && (best_w > blind_value || blind < 0)) return best;
    if (blind >= 0) return blind;
    if (n_face) {
        int pick = -1;
        double pw = 0.0;
        for (int f = 0; f < n_face; f++) {
            int slot = (int)((c->legal->v[faces[f]] >> 3) & 255U);
            double w = wants[c->s->display[slot]];
            if (pick < 0 || w > pw) { /* max by (wants, -slot): the first of equal wants */
                pick = faces[f];
                pw = w;
            }
        }
        return pick;
    }
    return -1;
}

static int fallback(const Ctx *c) {
    const Buf *legal = c->legal;
    int best = -1, bp = 0, bl = 0, bs = 0;
    for (int i = 0; i < legal->n; i++) {
        if ((legal->v[i] & 7U) != ACT_CLAIM) continue;
        int pay[NK], sum = 0, r = (int)((legal->v[i] >> 3) & 255U);
        unpack_counts(legal->v[i], pay);
        for (int k = 0; k < NK; k++) sum += pay[k];
        int p = c->board->routes[r].points;
        if (best < 0 || p > bp || (p == bp && (-pay[LOCO] > -bl || (pay[LOCO] == bl && -sum > -bs)))) {
            best = i;
            bp = p;
            bl = pay[LOCO];
            bs = sum;
        }
    }
    if (best >= 0) return best;
    for (int i = 0; i < legal->n; i++)
        if ((legal->v[i] & 7U) == ACT_BLIND) return i;
    return 0;
}

static int keep_choice(const State *s, const BoardT *b, Agent *ag, const Buf *legal) {
    int me = s->current, status[MAX_ROUTES];
    route_status(s, b, me, status);
    double cost[MAX_ROUTES];
    plan_costs(b, status, s->hands[me], ag->light ? 0.0 : 0.1, ag->long_weights, cost);
    int held[MAX_TICKETS];
    int nh = order_tickets(b, s->tickets[me], s->n_tickets[me], held);
    int budget = train_budget(s, me) - RF_MARGIN;
    int smallest = 99;
    for (int i = 0; i < legal->n; i++) {
        int size = __builtin_popcountll(legal->v[i] >> 11);
        if (size < smallest) smallest = size;
    }
    Plan root;
    memset(&root, 0, sizeof(root));
    double left = plan_onto(b, status, cost, &root, held, nh, budget > 0 ? budget : 0);
    int best = -1;
    double best_v = -RF_INF, best_r = 0.0;
    for (int i = 0; i < legal->n; i++) {
        uint64_t mask = legal->v[i] >> 11;
        uint8_t kept[SLOTS];
        int nk = 0;
        for (int t = 0; t < MAX_TICKETS; t++)
            if (mask & ((uint64_t)1 << t)) kept[nk++] = (uint8_t)t;
        int order[SLOTS];
        order_tickets(b, kept, nk, order);
        Plan plan = root;
        double choice_cost[MAX_ROUTES];
        memcpy(choice_cost, cost, sizeof(double) * b->n_routes);
        plan_onto(b, status, choice_cost, &plan, order, nk, left);
        /* keep_value */
        double factor;
        if (budget <= 0) {
            factor = -1.0;
        } else {
            double share = (double)plan.trains / budget;
            if (share <= RF_SAFE_SHARE)
                factor = 1.0;
            else {
                double x = (share - RF_SAFE_SHARE) / (1.0 - RF_SAFE_SHARE);
                factor = 1.0 - 1.2 * (1.0 < x ? 1.0 : x);
            }
        }
        double value = 0.0;
        for (int j = 0; j < nh + nk; j++) {
            int t = j < nh ? held[j] : kept[j - nh];
            int points = b->tickets[t].points;
            if (plan.infeasible[t])
                value -= points;
            else if (plan.completed[t])
                value += points;
            else
                value += points * factor;
        }
        for (int j = 0; j < plan.n_routes; j++) {
            int r = plan.routes[j];
            value += b->routes[r].points - RF_ALPHA * b->routes[r].length;
        }
        value -= RF_SIZE_PENALTY * (nk - smallest);
        double r = mt_random(&ag->rng);
        if (value > best_v || (value == best_v && r > best_r)) {
            best = i;
            best_v = value;
            best_r = r;
        }
    }
    return best;
}

/* The agent's plan for this decision (BaselineAgent._context): made again only when what it
 * depends on changed -- for LightRouteFocus its tickets, its trains or a planned route's status,
 * for RouteFocusAgent its tickets, its trains or the costs (which hold the status: 0 own, INF
 * blocked, the weight free), as the Python agents keep theirs. */
static void agent_plan(const State *s, const BoardT *b, Agent *ag, const int *status) {
    int me = s->current;
    int same = ag->has_plan && ag->key_player == me && ag->key_trains == s->trains[me] &&
               ag->key_n_tickets == s->n_tickets[me] &&
               memcmp(ag->key_tickets, s->tickets[me], (size_t)s->n_tickets[me]) == 0;
    if (same && ag->light) {
        for (int i = 0; i < ag->plan.n_routes && same; i++) same = status[ag->plan.routes[i]] == RF_FREE;
        if (same) return;
    }
    double cost[MAX_ROUTES];
    plan_costs(b, status, s->hands[me], ag->light ? 0.0 : 0.1, ag->long_weights, cost);
    if (same && !ag->light && memcmp(cost, ag->key_cost, sizeof(double) * (size_t)b->n_routes) == 0) return;
    memcpy(ag->key_cost, cost, sizeof(double) * (size_t)b->n_routes);
    int order[MAX_TICKETS];
    int n = order_tickets(b, s->tickets[me], s->n_tickets[me], order);
    memset(&ag->plan, 0, sizeof(Plan));
    plan_onto(b, status, cost, &ag->plan, order, n, (double)s->trains[me]);
    ag->has_plan = 1;
    ag->key_player = me;
    ag->key_trains = s->trains[me];
    ag->key_n_tickets = s->n_tickets[me];
    memcpy(ag->key_tickets, s->tickets[me], (size_t)s->n_tickets[me]);
}

static int rf_act(const Ctx *c, Agent *ag) {
    const State *s = c->s;
    int targets[MAX_ROUTES], nt = rf_targets(c, targets), me = c->me;
    int opp = opponent_trains(s, me);
    if (s->final_turns_left >= 0 || opp <= 3 || s->trains[me] <= 2) {
        int a = best_immediate_claim(c, ag, s->final_turns_left < 0 ? 1.0 : 0.0);
        if (a >= 0) return a;
    }
    for (int i = 0; i < nt; i++) {
        int a = claim_route(c, targets[i], targets, nt);
        if (a >= 0) return a;
    }
    if (nt == 0) {
        /* may_draw_tickets(spare=15) */
        int tickets = -1;
        for (int i = 0; i < c->first_claim; i++)
            if ((c->legal->v[i] & 7U) == ACT_TICKETS) tickets = i;
        if (s->tdeck_n != 0 && s->final_turns_left < 0 && tickets >= 0 && opp > 10 &&
            train_budget(s, me) - c->plan->trains >= 15)
            return tickets;
        int a = best_immediate_claim(c, ag, 4.0);
        if (a >= 0) return a;
    }
    int a = draw_card_choice(c, ag, targets, nt);
    if (a >= 0) return a;
    a = best_immediate_claim(c, ag, 0.0);
    if (a >= 0) return a;
    return fallback(c);
}

static int rf_tunnel_extra(const Ctx *c) {
    int decline = -1, n_pays = 0, pays[8];
    for (int i = 0; i < c->legal->n; i++) {
        int type = (int)(c->legal->v[i] & 7U);
        if (type == ACT_EXTRA && n_pays < 8)
            pays[n_pays++] = i;
        else if (type == ACT_DECLINE && decline < 0)
            decline = i;
    }
    const State *s = c->s;
    if (!s->tunnel_active || !n_pays) return decline;
    int targets[MAX_ROUTES], nt = rf_targets(c, targets), route = s->t_route, wanted = c->plan->use[route] > 0;
    for (int i = 0; i < nt && !wanted; i++) wanted = targets[i] == route;
    if (!(wanted || s->t_needed <= 1 || s->final_turns_left >= 0)) return decline;
    int rest[MAX_ROUTES], nr = 0, reserved[NK];
    for (int i = 0; i < nt; i++)
        if (targets[i] != route) rest[nr++] = targets[i];
    reserved_kinds(c->board, rest, nr, s->hands[c->me], reserved);
    int best = -1, best_pay[NK];
    double best_cost = 0.0;
    for (int i = 0; i < n_pays; i++) {
        int pay[NK];
        unpack_counts(c->legal->v[pays[i]], pay);
        double cost = payment_cost(pay, reserved);
        if (best < 0 || cost < best_cost || (cost == best_cost && pay_less(pay, best_pay))) {
            best = pays[i];
            best_cost = cost;
            memcpy(best_pay, pay, sizeof(pay));
        }
    }
    return best;
}

/* The Route Focus choice of the current decision: its index in ``legal`` (listed here). */
static int policy_choose(const State *s, const BoardT *b, Agent *ag, Buf *legal, int *index) {
    if (legal_actions(s, b, legal)) return -1;
    if (s->phase == PH_INITIAL_TICKETS || s->phase == PH_KEEP_TICKETS) {
        *index = keep_choice(s, b, ag, legal);
        return 0;
    }
    Ctx c;
    c.s = s;
    c.board = b;
    c.me = s->current;
    c.legal = legal;
    route_status(s, b, c.me, c.status);
    agent_plan(s, b, ag, c.status);
    c.plan = &ag->plan;
    for (int r = 0; r < b->n_routes; r++) c.run_n[r] = 0;
    c.first_claim = legal->n;
    for (int i = 0; i < legal->n; i++) {
        if ((legal->v[i] & 7U) != ACT_CLAIM) continue;
        if (i < c.first_claim) c.first_claim = i;
        int r = (int)((legal->v[i] >> 3) & 255U);
        if (c.run_n[r]++ == 0) c.run_start[r] = i;
    }
    int choice = -1;
    if (s->phase == PH_CHOOSE_ACTION)
        choice = rf_act(&c, ag);
    else if (s->phase == PH_SECOND_CARD) {
        int targets[MAX_ROUTES], nt = rf_targets(&c, targets);
        choice = draw_card_choice(&c, ag, targets, nt);
    } else if (s->phase == PH_TUNNEL_EXTRA)
        choice = rf_tunnel_extra(&c);
    *index = choice >= 0 ? choice : fallback(&c);
    return 0;
}

/* ai/value/features.py's features(view) of ``me`` (the value model's inputs), into out[16]. */
#define VALUE_FEATURES 16
static void value_features(const State *s, const BoardT *b, int me, double *out) {
    int status[MAX_ROUTES];
    double cost[MAX_ROUTES];
    route_status(s, b, me, status);
    plan_costs(b, status, s->hands[me], 0.0, 0, cost);
    Plan plan;
    memset(&plan, 0, sizeof(plan));
    int tickets[MAX_TICKETS] = {0}, trains = s->trains[me];
    for (int i = 0; i < s->n_tickets[me]; i++) tickets[i] = s->tickets[me][i];
    plan_onto(b, status, cost, &plan, tickets, s->n_tickets[me], (double)trains);
    int completed = 0, pending = 0, infeasible = 0, n_completed = 0;
    for (int i = 0; i < s->n_tickets[me]; i++) {
        int t = tickets[i], points = b->tickets[t].points;
        if (plan.infeasible[t])
            infeasible += points;
        else if (plan.completed[t]) {
            completed += points;
            n_completed++;
        } else
            pending += points;
    }
    int opp_trains = 1 << 30, opp_score = -(1 << 30), opp_hand = -1, opp_tickets = -1;
    for (int q = 0; q < s->players; q++) {
        if (q == me) continue;
        int hand = hand_sum(s->hands[q]);
        if (s->trains[q] < opp_trains) opp_trains = s->trains[q];
        if (s->scores[q] > opp_score) opp_score = s->scores[q];
        if (hand > opp_hand) opp_hand = hand;
        if (s->n_tickets[q] > opp_tickets) opp_tickets = s->n_tickets[q];
    }
    int placed = 40 - (trains < opp_trains ? trains : opp_trains), hand = hand_sum(s->hands[me]);
    int short_ = plan.trains - hand > 0 ? plan.trains - hand : 0, blocked = 0;
    for (int r = 0; r < b->n_routes; r++) blocked += status[r] == RF_BLOCKED;
    out[0] = placed / 40.0;
    out[1] = (double)(s->scores[me] - opp_score);
    out[2] = (double)trains;
    out[3] = (double)opp_trains;
    out[4] = (double)hand;
    out[5] = (double)opp_hand;
    out[6] = (double)completed;
    out[7] = (double)pending;
    out[8] = (double)infeasible;
    out[9] = (double)plan.trains;
    out[10] = (double)(trains - plan.trains);
    out[11] = pending * short_ / 40.0;
    out[12] = (double)n_completed;
    out[13] = (double)opp_tickets;
    out[14] = (double)blocked / b->n_routes;
    out[15] = s->final_round_trigger >= 0 ? 1.0 : 0.0;
}
