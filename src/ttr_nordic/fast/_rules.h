/* The rules: the board's numbers, the state, setup, payments, legal actions and transitions,
 * each as the Python engine (src/ttr_nordic/engine/) has it.
 * Part of the compiled core: included by _core.c, in the order given there. */
/* ------------------------------------------------------------------------------- board */

typedef struct {
    int a, b, length, color, kind, ferry_locos, twin, points;
    int need; /* which count of the hand (NEED_*) must reach the length for a claim to be possible */
} RouteT;

enum { NEED_COLOR = 0, NEED_COLOR_LOCOS = 8, NEED_BEST = 16, NEED_BEST_LOCOS, NEED_FERRY, NEED_TOTAL, NEED_COUNTS };

static void board_prepare(RouteT *r) {
    switch (r->kind) {
    case K_REGULAR:
        r->need = r->color == GRAY ? NEED_BEST : NEED_COLOR + r->color;
        break;
    case K_TUNNEL:
        r->need = r->color == GRAY ? NEED_BEST_LOCOS : NEED_COLOR_LOCOS + r->color;
        break;
    case K_FERRY:
        r->need = NEED_FERRY;
        break;
    default:
        r->need = NEED_TOTAL;
    }
}

typedef struct {
    int a, b, points;
} TicketT;

#define MAX_NEED 10 /* counts at or above the longest route (9) decide nothing more */

typedef struct {
    int n_routes, n_tickets, n_cities;
    RouteT routes[MAX_ROUTES];
    TicketT tickets[MAX_TICKETS];
    /* Route sets as two 64-bit words: by need group and count, the group's routes no longer than
     * the count; by trains, the routes no longer than that. */
    uint64_t need_mask[NEED_COUNTS][MAX_NEED][2];
    uint64_t length_mask[TRAINS_PER_PLAYER + 1][2];
    /* Route Focus's planning tables (_policy.h, policy_tables) */
    double train_cost[MAX_ROUTES], long_cost[MAX_ROUTES];
    int held_slot[MAX_ROUTES];
    int n_adj[MAX_CITIES], adj_route[MAX_CITIES][16], adj_other[MAX_CITIES][16];
} BoardT;

static void board_masks(BoardT *b) {
    memset(b->need_mask, 0, sizeof(b->need_mask));
    memset(b->length_mask, 0, sizeof(b->length_mask));
    for (int rid = 0; rid < b->n_routes; rid++) {
        const RouteT *r = &b->routes[rid];
        uint64_t bit = (uint64_t)1 << (rid & 63);
        for (int v = r->length; v < MAX_NEED; v++) b->need_mask[r->need][v][rid >> 6] |= bit;
        for (int t = r->length; t <= TRAINS_PER_PLAYER; t++) b->length_mask[t][rid >> 6] |= bit;
    }
}

/* ------------------------------------------------------------------------------- state */

typedef struct {
    MT rng;
    int players, current, phase, first_player;
    int deck_n;
    uint8_t deck[DECK_SIZE];
    int discard[NK];
    int display[SLOTS];
    int hands[MAX_PLAYERS][NK];
    int known[MAX_PLAYERS][NK];
    int n_tickets[MAX_PLAYERS];
    uint8_t tickets[MAX_PLAYERS][MAX_TICKETS];
    int n_returned[MAX_PLAYERS];
    uint8_t returned[MAX_PLAYERS][MAX_TICKETS];
    int tdeck_n;
    uint8_t tdeck[MAX_TICKETS];
    int n_offer[MAX_PLAYERS];
    uint8_t offers[MAX_PLAYERS][SLOTS];
    int8_t owner[MAX_ROUTES];
    uint64_t closed[MAX_PLAYERS][2]; /* routes a player may not claim: owned, or a twin closed to them */
    int trains[MAX_PLAYERS], scores[MAX_PLAYERS];
    int tunnel_active, t_route, t_base[NK], t_revealed[3], t_n_revealed, t_needed, t_color, t_loco_only;
    int final_turns_left, final_round_trigger, consecutive_passes, turn, n_actions;
} State;

typedef struct {
    uint64_t *v;
    int n, cap;
} Buf;

static __attribute__((noinline)) int buf_grow(Buf *b) {
    int cap = b->cap ? 2 * b->cap : 256;
    uint64_t *v = (uint64_t *)realloc(b->v, (size_t)cap * sizeof(uint64_t));
    if (v == NULL) return -1;
    b->v = v;
    b->cap = cap;
    return 0;
}

static inline int buf_push(Buf *b, uint64_t code) {
    if (__builtin_expect(b->n == b->cap, 0) && buf_grow(b)) return -1;
    b->v[b->n++] = code;
    return 0;
}

#define CODE(type, arg) ((uint64_t)(type) | ((uint64_t)(arg) << 3))

static inline uint64_t pack_counts(const int *c) {
    uint64_t out = 0;
    for (int k = 0; k < NK; k++) out |= (uint64_t)c[k] << (11 + 4 * k);
    return out;
}

static inline void unpack_counts(uint64_t code, int *c) {
    for (int k = 0; k < NK; k++) c[k] = (int)((code >> (11 + 4 * k)) & 15U);
}

/* ----------------------------------------------------------------- chosen draws (_chance.h) */

/* A draw plan: the items the next draws take, chosen by the caller (OpenSpiel's chance nodes),
 * consumed in draw order. At the first draw with no chosen item left the plan stops and keeps
 * that draw's pile; later draws then take the top of their pile as usual (the caller throws
 * that state away). Set only for the length of one call, on a copy of a state (_chance.h). */
typedef struct {
    const long *chosen;
    int n_chosen, used;
    int stopped, bad; /* bad: a chosen item was not in its pile */
    int pile;         /* the stopping draw's pile: 0 cards, 1 tickets */
    int n_items;
    uint8_t items[DECK_SIZE > MAX_TICKETS ? DECK_SIZE : MAX_TICKETS]; /* that pile's items then */
} DrawPlan;

static __thread DrawPlan *draw_plan = NULL;

/* The next draw from pile (n items, n > 0) under the plan: the chosen item's first occurrence
 * swapped to the top and taken, as the engine's draw hook does. */
static int __attribute__((noinline)) planned_draw(DrawPlan *plan, uint8_t *pile, int *n, int which) {
    if (!plan->stopped && !plan->bad) {
        if (plan->used < plan->n_chosen) {
            long want = plan->chosen[plan->used++];
            int at = -1;
            for (int i = 0; i < *n && at < 0; i++)
                if (pile[i] == want) at = i;
            if (at < 0) {
                plan->bad = 1;
            } else {
                uint8_t top = pile[*n - 1];
                pile[*n - 1] = pile[at];
                pile[at] = top;
            }
        } else {
            plan->stopped = 1;
            plan->pile = which;
            plan->n_items = *n;
            memcpy(plan->items, pile, (size_t)*n);
        }
    }
    return pile[--*n];
}

/* The top ticket of the ticket pile (the caller checks that it is not empty). */
static inline int draw_ticket(State *s) {
    if (__builtin_expect(draw_plan != NULL, 0)) return planned_draw(draw_plan, s->tdeck, &s->tdeck_n, 1);
    return s->tdeck[--s->tdeck_n];
}

/* ------------------------------------------------------------------------------ setup */

static int draw_card(State *s) {
    if (s->deck_n == 0) {
        int any = 0;
        for (int k = 0; k < NK; k++) {
            for (int i = 0; i < s->discard[k]; i++) s->deck[s->deck_n++] = (uint8_t)k;
            any |= s->discard[k];
            s->discard[k] = 0;
        }
        if (!any) return EMPTY;
        mt_shuffle(&s->rng, s->deck, s->deck_n);
    }
    if (__builtin_expect(draw_plan != NULL, 0)) return planned_draw(draw_plan, s->deck, &s->deck_n, 0);
    return s->deck[--s->deck_n];
}

static void sort_small(uint8_t *x, int n) {
    for (int i = 1; i < n; i++) {
        uint8_t v = x[i];
        int j = i - 1;
        while (j >= 0 && x[j] > v) {
            x[j + 1] = x[j];
            j--;
        }
        x[j + 1] = v;
    }
}

static void setup(State *s, const BoardT *board, int players, int first_player) {
    /* s->rng is seeded by the caller; the rest follows GameCore.from_config. */
    MT rng = s->rng;
    memset(s, 0, sizeof(State));
    s->rng = rng;
    s->players = players;
    for (int i = 0; i < SLOTS; i++) s->display[i] = EMPTY;
    for (int r = 0; r < board->n_routes; r++) s->owner[r] = EMPTY;
    for (int p = 0; p < players; p++) s->trains[p] = TRAINS_PER_PLAYER;
    s->final_turns_left = -1;
    s->final_round_trigger = EMPTY;
    int first = first_player < 0 ? (int)mt_below(&s->rng, (uint32_t)players) : first_player;
    for (int k = 0; k < NK; k++)
        for (int i = 0; i < FULL_DECK[k]; i++) s->deck[s->deck_n++] = (uint8_t)k;
    if (draw_plan == NULL) mt_shuffle(&s->rng, s->deck, s->deck_n); /* a plan chooses every draw */
    for (int p = 0; p < players; p++)
        for (int i = 0; i < 4; i++) s->hands[p][draw_card(s)]++;
    for (int i = 0; i < SLOTS; i++) s->display[i] = draw_card(s);
    s->tdeck_n = board->n_tickets;
    for (int t = 0; t < board->n_tickets; t++) s->tdeck[t] = (uint8_t)t;
    if (draw_plan == NULL) mt_shuffle(&s->rng, s->tdeck, s->tdeck_n);
    for (int p = 0; p < players; p++) {
        for (int i = 0; i < 5; i++) s->offers[p][i] = (uint8_t)draw_ticket(s);
        s->n_offer[p] = 5;
        sort_small(s->offers[p], 5);
    }
    s->first_player = first;
    s->current = first;
    s->phase = PH_INITIAL_TICKETS;
}

/* ------------------------------------------------------------------------- payments */

static int hand_sum(const int *h) {
    int t = 0;
    for (int k = 0; k < NK; k++) t += h[k];
    return t;
}

static inline int push_payment(Buf *out, int rid, const int *pay) {
    return buf_push(out, CODE(ACT_CLAIM, rid) | pack_counts(pay));
}

static int regular_options(const RouteT *r, int rid, const int *hand, Buf *out) {
    int n = r->length;
    if (r->color != GRAY) { /* the listing's filter has checked hand[color] >= n */
        int pay[NK] = {0};
        pay[r->color] = n;
        return push_payment(out, rid, pay);
    }
    for (int c = 0; c < 8; c++) {
        if (hand[c] >= n) {
            int pay[NK] = {0};
            pay[c] = n;
            if (push_payment(out, rid, pay)) return -1;
        }
    }
    return 0;
}

static int tunnel_color(int n, int c, int locos, const int *hand, int rid, Buf *out) {
    for (int cc = hand[c] < n ? hand[c] : n; cc > 0; cc--) {
        int lc = n - cc;
        if (lc > locos) break;
        int pay[NK] = {0};
        pay[c] = cc;
        pay[LOCO] = lc;
        if (push_payment(out, rid, pay)) return -1;
    }
    return 0;
}

static int tunnel_options(const RouteT *r, int rid, const int *hand, Buf *out) {
    int n = r->length, locos = hand[LOCO];
    if (locos >= n) {
        int pay[NK] = {0};
        pay[LOCO] = n;
        if (push_payment(out, rid, pay)) return -1;
    }
    if (r->color != GRAY) return tunnel_color(n, r->color, locos, hand, rid, out);
    for (int c = 0; c < 8; c++)
        if (tunnel_color(n, c, locos, hand, rid, out)) return -1;
    return 0;
}

static int ferry_singles(int n, int L, const int *hand, int route_color, int rid, Buf *out) {
    int hand_locos = hand[LOCO];
    int gray = route_color == GRAY;
    for (int c = 0; c < 8; c++) {
        if (!gray && c != route_color) continue;
        int have = hand[c];
        if (!have && gray) continue;
        int top = have > n - L ? n - L : have;
        if (top > n) top = n;
        for (int cc = top; cc > (gray ? 0 : -1); cc--) {
            int lc = n - cc;
            if (lc > hand_locos) break;
            int pay[NK] = {0};
            pay[c] = cc;
            pay[LOCO] = lc;
            if (push_payment(out, rid, pay)) return -1;
        }
    }
    if (gray && hand_locos >= n) {
        int pay[NK] = {0};
        pay[LOCO] = n;
        if (push_payment(out, rid, pay)) return -1;
    }
    return 0;
}

static int ferry_structures(int n, int L, const int *hand, int color, int min_cc, int max_groups, const int *order,
                            int n_order, int rid, Buf *out) {
    int hand_locos = hand[LOCO];
    int have = color >= 0 ? hand[color] : 0;
    int others[8], n_others = 0;
    for (int i = 0; i < n_order; i++)
        if (order[i] != color) others[n_others++] = order[i];
    int color_limit = have > n - L ? n - L : have;
    for (int groups = 0; groups <= max_groups; groups++) {
        int singles = n - groups;
        int top = color_limit < singles ? color_limit : singles;
        if (top < min_cc || singles - top > hand_locos) continue; /* no split of the singles fits */
        int prefix[NK] = {0};
        int missing = 3 * groups;
        for (int i = 0; i < n_others; i++) {
            if (missing == 0) break;
            int o = others[i];
            int take = hand[o] < missing ? hand[o] : missing;
            prefix[o] = take;
            missing -= take;
        }
        int saturated_done = 0;
        for (int cc = top; cc > min_cc - 1; cc--) {
            int lc = singles - cc;
            if (lc > hand_locos) break;
            int spare_color = have - cc, extra_color;
            if (spare_color <= missing) {
                if (saturated_done) continue;
                saturated_done = 1;
                extra_color = spare_color;
            } else {
                extra_color = missing;
            }
            int extra_locos = missing - extra_color;
            if (extra_locos > hand_locos - lc) continue;
            if (color >= 0) prefix[color] = cc + extra_color;
            prefix[LOCO] = lc + extra_locos;
            if (push_payment(out, rid, prefix)) return -1;
        }
    }
    return 0;
}

/* The colors held, by count held, fewest first (ties by color): sorted(COLORS, key=hand.__getitem__)
 * without the colors not held; their number. */
static int colors_by_count(const int *hand, int *order) {
    int n = 0;
    for (int c = 0; c < 8; c++) {
        if (!hand[c]) continue;
        int j = n - 1;
        while (j >= 0 && hand[order[j]] > hand[c]) {
            order[j + 1] = order[j];
            j--;
        }
        order[j + 1] = c;
        n++;
    }
    return n;
}

static int ferry_options(const RouteT *r, int rid, const int *hand, int total, const int *order, int n_order,
                         Buf *out) {
    int n = r->length, L = r->ferry_locos;
    int d = total - n;
    int max_groups = d >= 0 ? d / 2 : -((-d + 1) / 2);
    if (max_groups > n) max_groups = n;
    if (max_groups <= 0) return ferry_singles(n, L, hand, r->color, rid, out);
    if (r->color != GRAY)
        return ferry_structures(n, L, hand, r->color, 0, max_groups, order, n_order, rid, out);
    int start = out->n;
    for (int c = 0; c < 8; c++)
        if (hand[c] && ferry_structures(n, L, hand, c, 1, max_groups, order, n_order, rid, out)) return -1;
    if (ferry_structures(n, L, hand, -1, 0, max_groups, order, n_order, rid, out)) return -1;
    /* Two colors' structures can meet in one multiset: keep each first one. */
    int w = start;
    for (int i = start; i < out->n; i++) {
        int dup = 0;
        for (int j = start; j < w; j++)
            if (out->v[j] == out->v[i]) {
                dup = 1;
                break;
            }
        if (!dup) out->v[w++] = out->v[i];
    }
    out->n = w;
    return 0;
}

static int fill_groups(const int *rest, int need, int color, int *taken) {
    memset(taken, 0, NK * sizeof(int));
    if (need == 0) return 1;
    if (hand_sum(rest) < need) return 0;
    int others[10], n_others = 0; /* the other colors, then the color and the locomotive */
    for (int c = 0; c < 8; c++)
        if (c != color && rest[c]) others[n_others++] = c;
    for (int i = 1; i < n_others; i++) { /* by (count, color) */
        int v = others[i], j = i - 1;
        while (j >= 0 && (rest[others[j]] > rest[v] || (rest[others[j]] == rest[v] && others[j] > v))) {
            others[j + 1] = others[j];
            j--;
        }
        others[j + 1] = v;
    }
    others[n_others++] = color;
    others[n_others++] = LOCO;
    for (int i = 0; i < n_others; i++) {
        int card = others[i];
        if (card < 0 || !rest[card]) continue;
        int take = rest[card] < need ? rest[card] : need;
        taken[card] += take;
        need -= take;
        if (need == 0) return 1;
    }
    return 0;
}

static int special_options(const RouteT *r, int rid, const int *hand, Buf *out) {
    int n = r->length, total = hand_sum(hand);
    int start = out->n;
    for (int c = 0; c < 8; c++) {
        for (int groups = 0; groups <= n; groups++) {
            int cc = n - groups;
            if (cc > hand[c]) continue;
            if (cc + 4 * groups > total) break;
            int rest[NK], filler[NK];
            memcpy(rest, hand, sizeof(rest));
            rest[c] -= cc;
            if (!fill_groups(rest, 4 * groups, c, filler)) continue;
            filler[c] += cc;
            uint64_t code = CODE(ACT_CLAIM, rid) | pack_counts(filler);
            int dup = 0;
            for (int j = start; j < out->n; j++)
                if (out->v[j] == code) {
                    dup = 1;
                    break;
                }
            if (!dup && buf_push(out, code)) return -1;
        }
    }
    return 0;
}

static int payment_options(const RouteT *r, int rid, const int *hand, int total, const int *order, int n_order,
                           Buf *out) {
    switch (r->kind) {
    case K_REGULAR:
        return regular_options(r, rid, hand, out);
    case K_FERRY:
        return ferry_options(r, rid, hand, total, order, n_order, out);
    case K_TUNNEL:
        return tunnel_options(r, rid, hand, out);
    default:
        return special_options(r, rid, hand, out);
    }
}

/* ---------------------------------------------------------------------- legal actions */

static inline int route_open(const State *s, const BoardT *board, int rid, int p) {
    const RouteT *r = &board->routes[rid];
    if (s->owner[rid] != EMPTY || r->length > s->trains[p]) return 0;
    if (r->twin >= 0) {
        int t = s->owner[r->twin];
        if (t != EMPTY && (s->players == 2 || t == p)) return 0;
    }
    return 1;
}

static int card_draws(const State *s, Buf *out) {
    for (int i = 0; i < SLOTS; i++)
        if (s->display[i] != EMPTY && buf_push(out, CODE(ACT_FACE_UP, i))) return -1;
    int discard = 0;
    for (int k = 0; k < NK; k++) discard |= s->discard[k];
    if ((s->deck_n || discard) && buf_push(out, CODE(ACT_BLIND, 0))) return -1;
    return 0;
}

static int legal_actions(const State *s, const BoardT *board, Buf *out) {
    out->n = 0;
    int p = s->current;
    switch (s->phase) {
    case PH_CHOOSE_ACTION: {
        if (card_draws(s, out)) return -1;
        if (s->tdeck_n && buf_push(out, CODE(ACT_TICKETS, 0))) return -1;
        const int *hand = s->hands[p];
        int locos = hand[LOCO], total = hand_sum(hand), best = 0;
        for (int c = 0; c < 8; c++)
            if (hand[c] > best) best = hand[c];
        /* The fewest cards a route needs, checked before listing (the engine's candidate
         * filter, claims.claim_candidates; most routes fail it): each route compares its length
         * with one of these counts (RouteT.need, set by board_prepare). */
        int counts[NEED_COUNTS];
        for (int c = 0; c < 8; c++) {
            counts[NEED_COLOR + c] = hand[c];
            counts[NEED_COLOR_LOCOS + c] = hand[c] + locos;
        }
        counts[NEED_BEST] = best;
        counts[NEED_BEST_LOCOS] = best + locos;
        counts[NEED_FERRY] = locos ? total : total - 2;
        counts[NEED_TOTAL] = total;
        int order[8];
        int n_order = colors_by_count(hand, order);
        const uint64_t *open_by_trains = board->length_mask[s->trains[p] < 0 ? 0 : s->trains[p]];
        uint64_t fits0 = 0, fits1 = 0;
        for (int g = 0; g < NEED_COUNTS; g++) {
            int v = counts[g];
            v = v < 0 ? 0 : (v < MAX_NEED ? v : MAX_NEED - 1); /* no route fits a count of 0 */
            fits0 |= board->need_mask[g][v][0];
            fits1 |= board->need_mask[g][v][1];
        }
        fits0 &= open_by_trains[0] & ~s->closed[p][0];
        fits1 &= open_by_trains[1] & ~s->closed[p][1];
        for (int w = 0; w < 2; w++) {
            uint64_t fits = w ? fits1 : fits0;
            while (fits) {
                int rid = 64 * w + __builtin_ctzll(fits);
                fits &= fits - 1;
                if (payment_options(&board->routes[rid], rid, hand, total, order, n_order, out)) return -1;
            }
        }
        if (out->n == 0 && buf_push(out, CODE(ACT_PASS, 0))) return -1;
        return 0;
    }
    case PH_SECOND_CARD:
        return card_draws(s, out);
    case PH_INITIAL_TICKETS:
    case PH_KEEP_TICKETS: {
        int m = s->n_offer[p];
        int minimum = s->phase == PH_INITIAL_TICKETS ? 2 : 1;
        if (minimum > m) minimum = m;
        const uint8_t *offer = s->offers[p];
        for (int size = m; size >= minimum; size--) {
            /* itertools.combinations(offer, size): lexicographic index tuples */
            int idx[SLOTS];
            for (int i = 0; i < size; i++) idx[i] = i;
            for (;;) {
                uint64_t mask = 0;
                for (int i = 0; i < size; i++) mask |= (uint64_t)1 << offer[idx[i]];
                if (buf_push(out, CODE(ACT_KEEP, 0) | (mask << 11))) return -1;
                int i = size - 1;
                while (i >= 0 && idx[i] == i + m - size) i--;
                if (i < 0) break;
                idx[i]++;
                for (int j = i + 1; j < size; j++) idx[j] = idx[j - 1] + 1;
            }
        }
        return 0;
    }
    case PH_TUNNEL_EXTRA: {
        const int *hand = s->hands[p];
        int needed = s->t_needed, color = s->t_color;
        int color_max = s->t_loco_only ? 0 : (hand[color] < needed ? hand[color] : needed);
        for (int cc = color_max; cc >= 0; cc--) {
            int lc = needed - cc;
            if (lc > hand[LOCO]) break;
            int pay[NK] = {0};
            if (cc) pay[color] = cc;
            pay[LOCO] = lc;
            if (buf_push(out, CODE(ACT_EXTRA, 0) | pack_counts(pay))) return -1;
        }
        return buf_push(out, CODE(ACT_DECLINE, 0));
    }
    default:
        return 0;
    }
}

/* ------------------------------------------------------------------------ transitions */

static void game_over(State *s) { s->phase = PH_GAME_OVER; }

static void end_turn(State *s, int passed) {
    for (int i = 0; i < SLOTS; i++) {
        if (s->display[i] == EMPTY) {
            int card = draw_card(s);
            if (card == EMPTY) break;
            s->display[i] = card;
        }
    }
    int p = s->current;
    s->turn++;
    s->consecutive_passes = passed ? s->consecutive_passes + 1 : 0;
    if (s->final_turns_left < 0) {
        if (s->trains[p] <= 2) {
            s->final_round_trigger = p;
            s->final_turns_left = s->players;
        }
    } else {
        s->final_turns_left--;
        if (s->final_turns_left == 0) {
            game_over(s);
            return;
        }
    }
    if (s->consecutive_passes >= s->players) {
        game_over(s);
        return;
    }
    s->current = (p + 1) % s->players;
    s->phase = PH_CHOOSE_ACTION;
}

static void after_first_card(State *s) {
    int available = s->deck_n;
    for (int k = 0; k < NK && !available; k++) available |= s->discard[k];
    for (int i = 0; i < SLOTS && !available; i++) available |= s->display[i] != EMPTY;
    if (s->phase == PH_CHOOSE_ACTION && available)
        s->phase = PH_SECOND_CARD;
    else
        end_turn(s, 0);
}

static void pay_cards(State *s, int p, const int *pay) {
    for (int k = 0; k < NK; k++) {
        int c = pay[k];
        if (c) {
            s->hands[p][k] -= c;
            s->discard[k] += c;
            if (s->known[p][k]) s->known[p][k] = s->known[p][k] > c ? s->known[p][k] - c : 0;
        }
    }
}

static void place(State *s, const BoardT *board, int p, int rid) {
    s->owner[rid] = (int8_t)p;
    int twin = board->routes[rid].twin;
    for (int q = 0; q < s->players; q++) {
        s->closed[q][rid >> 6] |= (uint64_t)1 << (rid & 63);
        /* R6.14: at 2 players a double route's other lane closes; at 3 only to its owner. */
        if (twin >= 0 && (s->players == 2 || q == p)) s->closed[q][twin >> 6] |= (uint64_t)1 << (twin & 63);
    }
    s->trains[p] -= board->routes[rid].length;
    s->scores[p] += board->routes[rid].points;
}

/* Applies a legal action (unchecked, as GameCore.apply_unchecked). */
static void apply_action(State *s, const BoardT *board, uint64_t code) {
    int p = s->current;
    int type = (int)(code & 7U);
    int arg = (int)((code >> 3) & 255U);
    s->n_actions++;
    switch (type) {
    case ACT_FACE_UP: {
        int card = s->display[arg];
        s->hands[p][card]++;
        s->known[p][card]++;
        s->display[arg] = draw_card(s);
        after_first_card(s);
        return;
    }
    case ACT_BLIND: {
        int card = draw_card(s);
        s->hands[p][card]++;
        after_first_card(s);
        return;
    }
    case ACT_TICKETS: {
        int count = s->tdeck_n < 3 ? s->tdeck_n : 3;
        for (int i = 0; i < count; i++) s->offers[p][i] = (uint8_t)draw_ticket(s);
        s->n_offer[p] = count;
        sort_small(s->offers[p], count);
        s->phase = PH_KEEP_TICKETS;
        return;
    }
    case ACT_KEEP: {
        uint64_t mask = code >> 11;
        for (int t = 0; t < MAX_TICKETS; t++)
            if (mask & ((uint64_t)1 << t)) s->tickets[p][s->n_tickets[p]++] = (uint8_t)t;
        for (int i = 0; i < s->n_offer[p]; i++) {
            int t = s->offers[p][i];
            if (!(mask & ((uint64_t)1 << t))) s->returned[p][s->n_returned[p]++] = (uint8_t)t;
        }
        s->n_offer[p] = 0;
        if (s->phase == PH_INITIAL_TICKETS) {
            int nxt = (p + 1) % s->players;
            if (nxt == s->first_player) s->phase = PH_CHOOSE_ACTION;
            s->current = nxt;
        } else {
            end_turn(s, 0);
        }
        return;
    }
    case ACT_CLAIM: {
        int pay[NK];
        unpack_counts(code, pay);
        const RouteT *r = &board->routes[arg];
        if (r->kind != K_TUNNEL) {
            pay_cards(s, p, pay);
            place(s, board, p, arg);
            end_turn(s, 0);
            return;
        }
        int total = 0;
        for (int k = 0; k < NK; k++) {
            total += pay[k];
            if (pay[k]) {
                s->hands[p][k] -= pay[k];
                s->known[p][k] = s->known[p][k] > pay[k] ? s->known[p][k] - pay[k] : 0;
            }
        }
        int loco_only = total == pay[LOCO];
        int color = r->color;
        if (color == GRAY) {
            color = LOCO;
            for (int c = 0; c < 8; c++)
                if (pay[c]) {
                    color = c;
                    break;
                }
        }
        int revealed[3], n_rev = 0, needed = 0;
        for (int i = 0; i < 3; i++) {
            int card = draw_card(s);
            if (card == EMPTY) break;
            revealed[n_rev++] = card;
        }
        for (int i = 0; i < n_rev; i++)
            needed += loco_only ? revealed[i] == LOCO : (revealed[i] == LOCO || revealed[i] == color);
        if (needed == 0) {
            for (int i = 0; i < n_rev; i++) s->discard[revealed[i]]++;
            for (int k = 0; k < NK; k++) s->discard[k] += pay[k];
            place(s, board, p, arg);
            end_turn(s, 0);
            return;
        }
        s->tunnel_active = 1;
        s->t_route = arg;
        memcpy(s->t_base, pay, sizeof(pay));
        memcpy(s->t_revealed, revealed, sizeof(revealed));
        s->t_n_revealed = n_rev;
        s->t_needed = needed;
        s->t_color = color;
        s->t_loco_only = loco_only;
        s->phase = PH_TUNNEL_EXTRA;
        return;
    }
    case ACT_EXTRA:
    case ACT_DECLINE: {
        for (int i = 0; i < s->t_n_revealed; i++) s->discard[s->t_revealed[i]]++;
        s->tunnel_active = 0;
        if (type == ACT_EXTRA) {
            int pay[NK];
            unpack_counts(code, pay);
            pay_cards(s, p, pay);
            for (int k = 0; k < NK; k++) s->discard[k] += s->t_base[k];
            place(s, board, p, s->t_route);
        } else {
            for (int k = 0; k < NK; k++) {
                s->hands[p][k] += s->t_base[k];
                s->known[p][k] += s->t_base[k];
            }
        }
        end_turn(s, 0);
        return;
    }
    default: /* pass */
        end_turn(s, 1);
        return;
    }
}
