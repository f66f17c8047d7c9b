/* The compiled core of the Nordic Countries rules (official rules, 2-3 players): setup, legal
 * actions, transitions and scoring, with the same randomness as the Python engine, so that a
 * game is its config, seed and actions in both (tests/fast/ compares them decision by decision).
 *
 * Randomness: Python's random.Random is MT19937 seeded with init_by_array from the seed's
 * 32-bit words (abs value, least significant first); shuffle() and randrange() draw with
 * _randbelow_with_getrandbits. Both are implemented here exactly, so the core deals, reshuffles
 * and reveals the very cards the engine does.
 *
 * Legal actions are listed in the engine's order (GameRules.legal_action_list): face-up slots,
 * the blind draw, tickets, then each claimable route's payments in route order, each route's
 * payments in the order of engine/payments.py; Pass when nothing else is legal.
 *
 * An action is a 64-bit code: bits 0-2 the type (ACT_* below), bits 3-10 the slot or route,
 * bits 11-46 nine 4-bit card counts (claims, extra payments) or bits 11+ a mask of ticket ids
 * (keep). ttr_nordic.fast.codec converts codes to and from engine actions.
 *
 * The board is read from the engine's Board through ttr_nordic.fast (CoreBoard below), never
 * from constants copied here.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_ROUTES 120
#define MAX_TICKETS 52
#define MAX_CITIES 64
#define NK 9
#define LOCO 8
#define GRAY (-1)
#define EMPTY (-1)
#define SLOTS 5
#define MAX_PLAYERS 3
#define DECK_SIZE 110
#define TRAINS_PER_PLAYER 40

enum { K_REGULAR, K_FERRY, K_TUNNEL, K_SPECIAL };
/* The engine's Phase members in definition order. */
enum { PH_INITIAL_TICKETS, PH_CHOOSE_ACTION, PH_SECOND_CARD, PH_KEEP_TICKETS, PH_TUNNEL_EXTRA, PH_GAME_OVER };
enum { ACT_FACE_UP, ACT_BLIND, ACT_TICKETS, ACT_KEEP, ACT_CLAIM, ACT_EXTRA, ACT_DECLINE, ACT_PASS };

static const int FULL_DECK[NK] = {12, 12, 12, 12, 12, 12, 12, 12, 14};

/* ------------------------------------------------------------------ MT19937 as CPython's */

typedef struct {
    uint32_t mt[624];
    int mti;
} MT;

static void mt_init_genrand(MT *m, uint32_t s) {
    m->mt[0] = s;
    for (int i = 1; i < 624; i++)
        m->mt[i] = 1812433253U * (m->mt[i - 1] ^ (m->mt[i - 1] >> 30)) + (uint32_t)i;
    m->mti = 624;
}

static void mt_init_by_array(MT *m, const uint32_t *key, size_t len) {
    mt_init_genrand(m, 19650218U);
    size_t i = 1, j = 0, k = 624 > len ? 624 : len;
    for (; k; k--) {
        m->mt[i] = (m->mt[i] ^ ((m->mt[i - 1] ^ (m->mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= 624) {
            m->mt[0] = m->mt[623];
            i = 1;
        }
        if (j >= len) j = 0;
    }
    for (k = 623; k; k--) {
        m->mt[i] = (m->mt[i] ^ ((m->mt[i - 1] ^ (m->mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= 624) {
            m->mt[0] = m->mt[623];
            i = 1;
        }
    }
    m->mt[0] = 0x80000000U;
}

static uint32_t mt_next(MT *m) {
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t y;
    if (m->mti >= 624) {
        int kk;
        for (kk = 0; kk < 624 - 397; kk++) {
            y = (m->mt[kk] & 0x80000000U) | (m->mt[kk + 1] & 0x7fffffffU);
            m->mt[kk] = m->mt[kk + 397] ^ (y >> 1) ^ mag01[y & 1U];
        }
        for (; kk < 623; kk++) {
            y = (m->mt[kk] & 0x80000000U) | (m->mt[kk + 1] & 0x7fffffffU);
            m->mt[kk] = m->mt[kk + (397 - 624)] ^ (y >> 1) ^ mag01[y & 1U];
        }
        y = (m->mt[623] & 0x80000000U) | (m->mt[0] & 0x7fffffffU);
        m->mt[623] = m->mt[396] ^ (y >> 1) ^ mag01[y & 1U];
        m->mti = 0;
    }
    y = m->mt[m->mti++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

/* random.Random._randbelow_with_getrandbits for 0 < n < 2**32. */
static uint32_t mt_below(MT *m, uint32_t n) {
    int k = 32 - __builtin_clz(n);
    uint32_t r = mt_next(m) >> (32 - k);
    while (r >= n) r = mt_next(m) >> (32 - k);
    return r;
}

static void mt_shuffle(MT *m, uint8_t *x, int len) {
    for (int i = len - 1; i > 0; i--) {
        int j = (int)mt_below(m, (uint32_t)(i + 1));
        uint8_t t = x[i];
        x[i] = x[j];
        x[j] = t;
    }
}

/* Seed from a Python int as random.seed() does (absolute value, 32-bit words, low first). */
static int mt_seed_object(MT *m, PyObject *seed) {
    uint32_t key[64];
    size_t len = 0;
    PyObject *n = PyNumber_Absolute(seed);
    if (n == NULL) return -1;
    PyObject *mask = PyLong_FromUnsignedLong(0xffffffffUL), *shift = PyLong_FromLong(32);
    if (mask == NULL || shift == NULL) goto fail;
    while (PyObject_IsTrue(n)) {
        if (len == 64) {
            PyErr_SetString(PyExc_ValueError, "the seed has more than 2048 bits");
            goto fail;
        }
        PyObject *low = PyNumber_And(n, mask);
        if (low == NULL) goto fail;
        key[len++] = (uint32_t)PyLong_AsUnsignedLong(low);
        Py_DECREF(low);
        PyObject *rest = PyNumber_Rshift(n, shift);
        if (rest == NULL) goto fail;
        Py_SETREF(n, rest);
    }
    if (len == 0) key[len++] = 0;
    Py_DECREF(n);
    Py_DECREF(mask);
    Py_DECREF(shift);
    mt_init_by_array(m, key, len);
    return 0;
fail:
    Py_XDECREF(n);
    Py_XDECREF(mask);
    Py_XDECREF(shift);
    return -1;
}

static void mt_seed_u64(MT *m, uint64_t seed) {
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    mt_init_by_array(m, key, key[1] ? 2 : 1);
}

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
    mt_shuffle(&s->rng, s->deck, s->deck_n);
    for (int p = 0; p < players; p++)
        for (int i = 0; i < 4; i++) s->hands[p][s->deck[--s->deck_n]]++;
    for (int i = 0; i < SLOTS; i++) s->display[i] = s->deck[--s->deck_n];
    s->tdeck_n = board->n_tickets;
    for (int t = 0; t < board->n_tickets; t++) s->tdeck[t] = (uint8_t)t;
    mt_shuffle(&s->rng, s->tdeck, s->tdeck_n);
    for (int p = 0; p < players; p++) {
        for (int i = 0; i < 5; i++) s->offers[p][i] = s->tdeck[--s->tdeck_n];
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
        for (int i = 0; i < count; i++) s->offers[p][i] = s->tdeck[--s->tdeck_n];
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

#include "_policy.h"

/* ----------------------------------------------------------------------- Python types */

typedef struct {
    PyObject_HEAD BoardT b;
} CoreBoard;

static PyTypeObject CoreBoardType;

static int int_item(PyObject *seq, Py_ssize_t i, int *out) {
    PyObject *item = PySequence_GetItem(seq, i);
    if (item == NULL) return -1;
    long v = PyLong_AsLong(item);
    Py_DECREF(item);
    if (v == -1 && PyErr_Occurred()) return -1;
    *out = (int)v;
    return 0;
}

/* CoreBoard(routes, tickets, cities): routes are (a, b, length, color, kind, ferry_locomotives,
 * twin, points) with kind 0 regular, 1 ferry, 2 tunnel, 3 special and -1 for gray / no twin;
 * tickets are (a, b, points). */
static int CoreBoard_init(CoreBoard *self, PyObject *args, PyObject *kwds) {
    PyObject *routes, *tickets;
    int cities;
    static char *kwlist[] = {"routes", "tickets", "cities", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOi", kwlist, &routes, &tickets, &cities)) return -1;
    Py_ssize_t nr = PySequence_Length(routes), nt = PySequence_Length(tickets);
    if (nr < 0 || nt < 0) return -1;
    if (nr < 1 || nr > MAX_ROUTES || nt < 1 || nt > MAX_TICKETS || cities < 2 || cities > MAX_CITIES) {
        PyErr_Format(PyExc_ValueError, "the core takes 1-%d routes, 1-%d tickets and 2-%d cities", MAX_ROUTES,
                     MAX_TICKETS, MAX_CITIES);
        return -1;
    }
    BoardT *b = &self->b;
    b->n_routes = (int)nr;
    b->n_tickets = (int)nt;
    b->n_cities = cities;
    for (Py_ssize_t i = 0; i < nr; i++) {
        PyObject *r = PySequence_GetItem(routes, i);
        if (r == NULL) return -1;
        int v[8], bad = PySequence_Length(r) != 8;
        for (int k = 0; k < 8 && !bad; k++) bad = int_item(r, k, &v[k]) != 0;
        Py_DECREF(r);
        if (bad) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a route is 8 ints");
            return -1;
        }
        if (v[0] < 0 || v[0] >= cities || v[1] < 0 || v[1] >= cities || v[2] < 1 || v[2] > 9 || v[3] < -1 ||
            v[3] > 7 || v[4] < 0 || v[4] > 3 || v[5] < 0 || v[5] > v[2] || v[6] < -1 || v[6] >= nr) {
            PyErr_Format(PyExc_ValueError, "route %zd is out of range", i);
            return -1;
        }
        RouteT *rt = &b->routes[i];
        rt->a = v[0], rt->b = v[1], rt->length = v[2], rt->color = v[3], rt->kind = v[4];
        rt->ferry_locos = v[5], rt->twin = v[6], rt->points = v[7];
        board_prepare(rt);
    }
    for (int c = 0; c < cities; c++) {
        int degree = 0;
        for (int r = 0; r < b->n_routes; r++) degree += (b->routes[r].a == c) + (b->routes[r].b == c);
        if (degree > 16) {
            PyErr_Format(PyExc_ValueError, "city %d has more than 16 routes", c);
            return -1;
        }
    }
    board_masks(b);
    policy_tables(b);
    for (Py_ssize_t i = 0; i < nt; i++) {
        PyObject *t = PySequence_GetItem(tickets, i);
        if (t == NULL) return -1;
        int v[3], bad = PySequence_Length(t) != 3;
        for (int k = 0; k < 3 && !bad; k++) bad = int_item(t, k, &v[k]) != 0;
        Py_DECREF(t);
        if (bad) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a ticket is 3 ints");
            return -1;
        }
        if (v[0] < 0 || v[0] >= cities || v[1] < 0 || v[1] >= cities) {
            PyErr_Format(PyExc_ValueError, "ticket %zd is out of range", i);
            return -1;
        }
        b->tickets[i].a = v[0], b->tickets[i].b = v[1], b->tickets[i].points = v[2];
    }
    return 0;
}

static PyTypeObject CoreBoardType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ttr_nordic.fast._core.CoreBoard",
    .tp_basicsize = sizeof(CoreBoard),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)CoreBoard_init,
    .tp_doc = "The board's numbers for the core: CoreBoard(routes, tickets, cities).",
};

typedef struct {
    PyObject_HEAD CoreBoard *board;
    State s;
    Buf legal;
} CoreGame;

static PyTypeObject CoreGameType;

static void CoreGame_dealloc(CoreGame *self) {
    Py_XDECREF(self->board);
    free(self->legal.v);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static CoreGame *new_game(CoreBoard *board) {
    CoreGame *g = PyObject_New(CoreGame, &CoreGameType);
    if (g == NULL) return NULL;
    Py_INCREF(board);
    g->board = board;
    g->legal.v = NULL;
    g->legal.n = g->legal.cap = 0;
    return g;
}

/* CoreGame(board, players, seed, first_player=-1): GameState.new's game. */
static PyObject *CoreGame_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *board, *seed;
    int players, first = -1;
    static char *kwlist[] = {"board", "players", "seed", "first_player", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!iO|i", kwlist, &CoreBoardType, &board, &players, &seed, &first))
        return NULL;
    if (players < 2 || players > 3 || first < -1 || first >= players) {
        PyErr_SetString(PyExc_ValueError, "the core plays 2 or 3 players, first_player -1 or a seat");
        return NULL;
    }
    if (!PyLong_Check(seed)) {
        PyErr_SetString(PyExc_TypeError, "the seed must be an int");
        return NULL;
    }
    CoreGame *g = new_game((CoreBoard *)board);
    if (g == NULL) return NULL;
    if (mt_seed_object(&g->s.rng, seed)) {
        Py_DECREF(g);
        return NULL;
    }
    setup(&g->s, &g->board->b, players, first);
    return (PyObject *)g;
}

static PyObject *CoreGame_clone(CoreGame *self, PyObject *unused) {
    CoreGame *g = new_game(self->board);
    if (g == NULL) return NULL;
    g->s = self->s;
    return (PyObject *)g;
}

static PyObject *codes_list(const Buf *b) {
    PyObject *out = PyList_New(b->n);
    if (out == NULL) return NULL;
    for (int i = 0; i < b->n; i++) {
        PyObject *v = PyLong_FromUnsignedLongLong(b->v[i]);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, v);
    }
    return out;
}

static PyObject *CoreGame_legal(CoreGame *self, PyObject *unused) {
    if (legal_actions(&self->s, &self->board->b, &self->legal)) return PyErr_NoMemory();
    return codes_list(&self->legal);
}

/* apply(code): the action must be one of legal()'s codes now (checked: a ValueError otherwise). */
static PyObject *CoreGame_apply(CoreGame *self, PyObject *arg) {
    uint64_t code = PyLong_AsUnsignedLongLong(arg);
    if (code == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    if (legal_actions(&self->s, &self->board->b, &self->legal)) return PyErr_NoMemory();
    for (int i = 0; i < self->legal.n; i++) {
        if (self->legal.v[i] == code) {
            apply_action(&self->s, &self->board->b, code);
            Py_RETURN_NONE;
        }
    }
    PyErr_Format(PyExc_ValueError, "action code %llu is not legal now", (unsigned long long)code);
    return NULL;
}

static PyObject *int_list(const int *v, int n) {
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (int i = 0; i < n; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(v[i]));
    return out;
}

static PyObject *byte_list(const uint8_t *v, int n) {
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (int i = 0; i < n; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(v[i]));
    return out;
}

/* state(): every field, as ttr_nordic.fast.state_fields lists them for an engine GameState. */
static PyObject *CoreGame_state(CoreGame *self, PyObject *unused) {
    State *s = &self->s;
    int n = s->players;
    PyObject *hands = PyList_New(n), *known = PyList_New(n), *tickets = PyList_New(n), *returned = PyList_New(n),
             *offers = PyList_New(n);
    for (int p = 0; p < n; p++) {
        PyList_SET_ITEM(hands, p, int_list(s->hands[p], NK));
        PyList_SET_ITEM(known, p, int_list(s->known[p], NK));
        PyList_SET_ITEM(tickets, p, byte_list(s->tickets[p], s->n_tickets[p]));
        PyList_SET_ITEM(returned, p, byte_list(s->returned[p], s->n_returned[p]));
        PyList_SET_ITEM(offers, p, byte_list(s->offers[p], s->n_offer[p]));
    }
    int owner[MAX_ROUTES];
    for (int r = 0; r < self->board->b.n_routes; r++) owner[r] = s->owner[r];
    PyObject *tunnel;
    if (s->tunnel_active)
        tunnel = Py_BuildValue("(iNNiii)", s->t_route, int_list(s->t_base, NK), int_list(s->t_revealed, s->t_n_revealed),
                               s->t_needed, s->t_color, s->t_loco_only);
    else
        tunnel = Py_NewRef(Py_None);
    return Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:i,s:i,s:i,s:N,s:i,s:i,s:i,s:i}", "deck",
                         byte_list(s->deck, s->deck_n), "discard", int_list(s->discard, NK), "display",
                         int_list(s->display, SLOTS), "hands", hands, "known", known, "tickets", tickets,
                         "returned_tickets", returned, "ticket_deck", byte_list(s->tdeck, s->tdeck_n), "offers",
                         offers, "route_owner", int_list(owner, self->board->b.n_routes), "trains",
                         int_list(s->trains, n), "scores", int_list(s->scores, n), "current", s->current, "phase",
                         s->phase, "first_player", s->first_player, "tunnel", tunnel, "final_turns_left",
                         s->final_turns_left, "final_round_trigger", s->final_round_trigger, "consecutive_passes",
                         s->consecutive_passes, "turn", s->turn);
}

static PyObject *result_tuple(const Result *r, int n) {
    static const char *decided[4] = {"score", "tickets", "longest path", "shared"};
    return Py_BuildValue("(NNNNNNNs)", int_list(r->route_points, n), int_list(r->ticket_points, n),
                         int_list(r->completed, n), int_list(r->globetrotter, n), int_list(r->longest, n),
                         int_list(r->total, n), int_list(r->winners, r->n_winners), decided[r->decided_by]);
}

/* result(): (route points, ticket points, tickets completed, globetrotter, longest trail,
 * totals, winners, decided_by), each a list per player but the last two. */
static PyObject *CoreGame_result(CoreGame *self, PyObject *unused) {
    Result r;
    score(&self->s, &self->board->b, &r, 1);
    return result_tuple(&r, self->s.players);
}

static PyObject *CoreGame_get_phase(CoreGame *self, void *c) { return PyLong_FromLong(self->s.phase); }
static PyObject *CoreGame_get_current(CoreGame *self, void *c) { return PyLong_FromLong(self->s.current); }
static PyObject *CoreGame_get_players(CoreGame *self, void *c) { return PyLong_FromLong(self->s.players); }
static PyObject *CoreGame_get_actions(CoreGame *self, void *c) { return PyLong_FromLong(self->s.n_actions); }
static PyObject *CoreGame_get_is_over(CoreGame *self, void *c) { return PyBool_FromLong(self->s.phase == PH_GAME_OVER); }

static PyGetSetDef CoreGame_getset[] = {
    {"phase", (getter)CoreGame_get_phase, NULL, "the phase, as the index of the engine's Phase member", NULL},
    {"current", (getter)CoreGame_get_current, NULL, "the seat to decide", NULL},
    {"players", (getter)CoreGame_get_players, NULL, "the number of players", NULL},
    {"actions", (getter)CoreGame_get_actions, NULL, "actions applied so far", NULL},
    {"is_over", (getter)CoreGame_get_is_over, NULL, "whether the game is over", NULL},
    {NULL},
};

static PyObject *CoreGame_rng_state(CoreGame *self, PyObject *unused);
static PyObject *CoreGame_play_out(CoreGame *self, PyObject *args);

static PyMethodDef CoreGame_methods[] = {
    {"clone", (PyCFunction)CoreGame_clone, METH_NOARGS, "an independent copy"},
    {"legal", (PyCFunction)CoreGame_legal, METH_NOARGS, "the legal action codes, in the engine's order"},
    {"apply", (PyCFunction)CoreGame_apply, METH_O, "apply one legal action code"},
    {"state", (PyCFunction)CoreGame_state, METH_NOARGS, "every field of the state, as a dict"},
    {"result", (PyCFunction)CoreGame_result, METH_NOARGS, "the final scoring"},
    {"rng_state", (PyCFunction)CoreGame_rng_state, METH_NOARGS, "the generator's words and position"},
    {"play_out", (PyCFunction)CoreGame_play_out, METH_VARARGS, "finish the game with Route Focus everywhere"},
    {NULL},
};

static PyTypeObject CoreGameType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ttr_nordic.fast._core.CoreGame",
    .tp_basicsize = sizeof(CoreGame),
    .tp_dealloc = (destructor)CoreGame_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = CoreGame_new,
    .tp_methods = CoreGame_methods,
    .tp_getset = CoreGame_getset,
    .tp_doc = "A game in the compiled core: CoreGame(board, players, seed, first_player=-1).",
};

/* play_random(board, players, first_seed, games): one game per seed s in first_seed..+games,
 * dealt as GameState.new(players, seed=s) and played with random.Random(s).choice over the legal
 * list (the same games as benchmarks/engine_speed.py's Python path). Returns (actions, a list
 * of the totals of every game, flattened). */
static PyObject *play_random(PyObject *mod, PyObject *args) {
    CoreBoard *board;
    int players;
    long long first_seed, games;
    if (!PyArg_ParseTuple(args, "O!iLL", &CoreBoardType, &board, &players, &first_seed, &games)) return NULL;
    if (players < 2 || players > 3 || first_seed < 0 || games < 0 || games > 100000000) {
        PyErr_SetString(PyExc_ValueError, "2 or 3 players, a non-negative first seed, 0 to 10**8 games");
        return NULL;
    }
    Buf legal = {NULL, 0, 0};
    State *s = (State *)malloc(sizeof(State));
    int *totals = (int *)malloc((size_t)(games * players + 1) * sizeof(int));
    long long actions = 0;
    int failed = s == NULL || totals == NULL;
    Py_BEGIN_ALLOW_THREADS;
    for (long long g = 0; g < games && !failed; g++) {
        MT chooser;
        uint64_t seed = (uint64_t)(first_seed + g);
        mt_seed_u64(&s->rng, seed);
        mt_seed_u64(&chooser, seed);
        setup(s, &board->b, players, -1);
        while (s->phase != PH_GAME_OVER) {
            if (legal_actions(s, &board->b, &legal)) {
                failed = 1;
                break;
            }
            apply_action(s, &board->b, legal.v[mt_below(&chooser, (uint32_t)legal.n)]);
        }
        actions += s->n_actions;
        Result r;
        score(s, &board->b, &r, 0);
        for (int p = 0; p < players; p++) totals[g * players + p] = r.total[p];
    }
    Py_END_ALLOW_THREADS;
    PyObject *out = failed ? PyErr_NoMemory() : PyList_New((Py_ssize_t)(games * players));
    for (long long i = 0; out != NULL && i < games * players; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(totals[i]));
    free(s);
    free(totals);
    free(legal.v);
    if (out == NULL) return NULL;
    return Py_BuildValue("(LN)", actions, out);
}

/* -------------------------------------------------------------- the batched environment */

/* The RL action ids (rl/actions.py's ActionSpace), passed in by rl/batched.py. */
#define ID_SLOTS 10 /* main color -1..7 and OVERFLOW (8), shifted by one */
#define ID_LOCOS 15
#define ID_TOTALS 37
#define OVERFLOW_SLOT 8

typedef struct {
    int size, face_up, blind, tickets, keep, decline, pass_, extra, claim;
    uint8_t slotted[MAX_ROUTES];
    int32_t *claim_index; /* [route][slot + 1][locos][total] -> claim offset, -1: none */
} IdSpace;

static inline int claim_id(const IdSpace *sp, int route, int slot, int locos, int total) {
    if (locos >= ID_LOCOS || total >= ID_TOTALS) return -1;
    int32_t off = sp->claim_index[((route * ID_SLOTS + slot + 1) * ID_LOCOS + locos) * ID_TOTALS + total];
    return off < 0 ? -1 : sp->claim + off;
}

static inline int main_color(const int *pay) {
    int best = 0, color = -1;
    for (int c = 0; c < 8; c++)
        if (pay[c] > best) best = pay[c], color = c;
    return color;
}

/* The ids of a legal list (ActionSpace.legal_id_list): -1 where an action has none. */
static void legal_ids(const State *s, const IdSpace *sp, const Buf *legal, int *ids) {
    int i = 0;
    while (i < legal->n) {
        uint64_t code = legal->v[i];
        int type = (int)(code & 7U), arg = (int)((code >> 3) & 255U);
        switch (type) {
        case ACT_FACE_UP:
            ids[i++] = sp->face_up + arg;
            continue;
        case ACT_BLIND:
            ids[i++] = sp->blind;
            continue;
        case ACT_TICKETS:
            ids[i++] = sp->tickets;
            continue;
        case ACT_DECLINE:
            ids[i++] = sp->decline;
            continue;
        case ACT_PASS:
            ids[i++] = sp->pass_;
            continue;
        case ACT_KEEP: {
            uint64_t mask = code >> 11;
            int bits = 0, p = s->current;
            for (int k = 0; k < s->n_offer[p]; k++)
                if (mask & ((uint64_t)1 << s->offers[p][k])) bits |= 1 << k;
            ids[i++] = sp->keep + bits - 1;
            continue;
        }
        case ACT_EXTRA: {
            int pay[NK], total = 0;
            unpack_counts(code, pay);
            for (int k = 0; k < NK; k++) total += pay[k];
            ids[i++] = total >= 1 && total <= 3 ? sp->extra + total * (total + 1) / 2 - 1 + pay[LOCO] : -1;
            continue;
        }
        default:
            break;
        }
        /* Claims: one route's run at a time. */
        int start = i;
        while (i < legal->n && (legal->v[i] & 7U) == ACT_CLAIM && (int)((legal->v[i] >> 3) & 255U) == arg) i++;
        int pays[i - start][NK], totals[i - start];
        for (int j = start; j < i; j++) {
            unpack_counts(legal->v[j], pays[j - start]);
            totals[j - start] = 0;
            for (int k = 0; k < NK; k++) totals[j - start] += pays[j - start][k];
        }
        if (!sp->slotted[arg]) {
            for (int j = start; j < i; j++) {
                const int *pay = pays[j - start];
                ids[j] = claim_id(sp, arg, main_color(pay), pay[LOCO], totals[j - start]);
            }
            continue;
        }
        /* ActionSpace._assign_slots: per (locomotives, total), by most cards of the main color
         * then the smaller count vector, each takes its main color's slot, else OVERFLOW, else the
         * lowest free color. */
        int n = i - start, done[n];
        memset(done, 0, sizeof(done));
        for (int a = 0; a < n; a++) {
            if (done[a]) continue;
            int group[n], g = 0;
            for (int b = a; b < n; b++)
                if (!done[b] && pays[b][LOCO] == pays[a][LOCO] && totals[b] == totals[a]) {
                    group[g++] = b;
                    done[b] = 1;
                }
            for (int x = 1; x < g; x++) { /* insertion sort by (-most, payment) */
                int v = group[x], y = x - 1;
                for (; y >= 0; y--) {
                    const int *pv = pays[v], *pu = pays[group[y]];
                    int mv = 0, mu = 0;
                    for (int c = 0; c < 8; c++) {
                        if (pv[c] > mv) mv = pv[c];
                        if (pu[c] > mu) mu = pu[c];
                    }
                    int later = mu < mv; /* u after v: fewer of its main color */
                    if (mu == mv)
                        for (int k = 0; k < NK; k++)
                            if (pu[k] != pv[k]) {
                                later = pu[k] > pv[k];
                                break;
                            }
                    if (!later) break;
                    group[y + 1] = group[y];
                }
                group[y + 1] = v;
            }
            int taken[ID_SLOTS] = {0}, displaced[n], nd = 0;
            for (int x = 0; x < g; x++) {
                int b = group[x], slot = main_color(pays[b]);
                if (taken[slot + 1]) {
                    displaced[nd++] = b;
                    continue;
                }
                taken[slot + 1] = 1;
                ids[start + b] = claim_id(sp, arg, slot, pays[b][LOCO], totals[b]);
            }
            for (int x = 0; x < nd; x++) {
                int b = displaced[x], slot = -2;
                if (!taken[OVERFLOW_SLOT + 1])
                    slot = OVERFLOW_SLOT;
                else
                    for (int c = 0; c < 8 && slot == -2; c++)
                        if (!taken[c + 1]) slot = c;
                if (slot == -2) {
                    ids[start + b] = -1;
                    continue;
                }
                taken[slot + 1] = 1;
                ids[start + b] = claim_id(sp, arg, slot, pays[b][LOCO], totals[b]);
            }
        }
    }
}

/* The observation layout of rl/observation.py (checked against its constants by rl/batched.py). */
#define OBS_ROUTES_END(nr) ((nr) * 3)

typedef struct {
    int size, routes_end, known_start, display_start, piles_start, tickets_start, offer_start, tickets_end,
        phase_start, turn_start, final_start, tunnel_start;
} ObsLayout;

/* Each count c scaled as observation.py scales it (c / 12 and so on, in double, then float32):
 * looked up, divisions cost more than the rest of the encoding. */
#define SCALED_MAX 160
static float twelfths[SCALED_MAX], thirds[SCALED_MAX], fifths[SCALED_MAX], fortieths[SCALED_MAX],
    deck_shares[SCALED_MAX], hundredths[1000];

static void scaled_tables_init(void) {
    for (int c = 0; c < SCALED_MAX; c++) {
        twelfths[c] = (float)(c / 12.0);
        thirds[c] = (float)(c / 3.0);
        fifths[c] = (float)(c / 5.0);
        fortieths[c] = (float)(c / 40.0);
        deck_shares[c] = (float)(c / 157.0);
    }
    for (int c = 0; c < 1000; c++) hundredths[c] = (float)(c / 100.0);
}

static inline float f32(double v) { return (float)v; }
static inline float scaled(const float *table, int c) { return c >= 0 && c < SCALED_MAX ? table[c] : 0.0f; }

/* encode_view(state.view(me)) written into out (size floats). */
static void encode_obs(const State *s, const BoardT *board, const ObsLayout *L, int me, float *out) {
    int n = s->players;
    memset(out, 0, (size_t)L->size * sizeof(float));
    int relative[MAX_PLAYERS];
    for (int q = 0; q < n; q++) relative[q] = (q - me + n) % n;
    for (int w = 0; w < 2; w++) { /* the claimed routes: closed to the viewer and owned */
        uint64_t bits = s->closed[me][w];
        while (bits) {
            int r = 64 * w + __builtin_ctzll(bits);
            bits &= bits - 1;
            if (s->owner[r] >= 0) out[r * 3 + relative[s->owner[r]]] = 1.0f;
        }
    }
    int at = L->routes_end;
    for (int k = 0; k < NK; k++) out[at + k] = scaled(twelfths, s->hands[me][k]);
    for (int q = 1; q < n; q++)
        for (int k = 0; k < NK; k++) out[L->known_start + (q - 1) * NK + k] = scaled(twelfths, s->known[(me + q) % n][k]);
    for (int i = 0; i < SLOTS; i++)
        if (s->display[i] >= 0) out[L->display_start + i * NK + s->display[i]] = 1.0f;
    out[L->piles_start] = scaled(deck_shares, s->deck_n);
    for (int k = 0; k < NK; k++) out[L->piles_start + 1 + k] = scaled(twelfths, s->discard[k]);
    out[L->piles_start + 10] = f32(s->tdeck_n / (double)board->n_tickets);
    /* own tickets and whether own routes complete them */
    int parent[MAX_CITIES];
    for (int c = 0; c < board->n_cities; c++) parent[c] = c;
    for (int r = 0; r < board->n_routes; r++) {
        if (s->owner[r] != me) continue;
        int ra = uf_find(parent, board->routes[r].a), rb = uf_find(parent, board->routes[r].b);
        if (ra != rb) parent[ra] = rb;
    }
    for (int i = 0; i < s->n_tickets[me]; i++) {
        int t = s->tickets[me][i];
        out[L->tickets_start + 2 * t] = 1.0f;
        out[L->tickets_start + 2 * t + 1] =
            uf_find(parent, board->tickets[t].a) == uf_find(parent, board->tickets[t].b) ? 1.0f : 0.0f;
    }
    for (int i = 0; i < s->n_offer[me]; i++) out[L->offer_start + s->offers[me][i]] = 1.0f;
    for (int r = 0; r < n; r++) {
        int q = (me + r) % n, base = L->tickets_end + 5 * r;
        out[base] = scaled(fortieths, s->trains[q]);
        out[base + 1] = s->scores[q] >= 0 && s->scores[q] < 1000 ? hundredths[s->scores[q]] : f32(s->scores[q] / 100.0);
        out[base + 2] = scaled(fortieths, hand_sum(s->hands[q]));
        out[base + 3] = f32(s->n_tickets[q] / (double)board->n_tickets);
        out[base + 4] = scaled(fifths, s->n_offer[q]);
    }
    out[L->phase_start + s->phase] = 1.0f;
    if (s->phase != PH_GAME_OVER) out[L->turn_start + ((s->current - me) % n + n) % n] = 1.0f;
    if (s->final_round_trigger >= 0) {
        out[L->final_start] = 1.0f;
        out[L->final_start + 1] = scaled(thirds, s->final_turns_left);
    }
    if (s->tunnel_active) {
        int revealed[NK] = {0};
        for (int i = 0; i < s->t_n_revealed; i++) revealed[s->t_revealed[i]]++;
        for (int k = 0; k < NK; k++) {
            out[L->tunnel_start + k] = scaled(twelfths, s->t_base[k]);
            out[L->tunnel_start + NK + k] = scaled(thirds, revealed[k]);
        }
        out[L->tunnel_start + 2 * NK] = scaled(thirds, s->t_needed);
        out[L->tunnel_start + 2 * NK + 1] = s->t_loco_only ? 1.0f : 0.0f;
    }
}

typedef struct {
    State s;
    MT chooser;         /* the opponents' random.Random(seed).choice */
    uint64_t seed;      /* this episode's seed */
    int n_ids;          /* the learner's legal actions now: their ids and codes */
    int *ids;
    uint64_t *codes;
    int cap;
    uint64_t *history;  /* with record: the episode's actions */
    int n_history, cap_history;
    Agent agents[MAX_PLAYERS]; /* Route Focus opponents */
} EnvSlot;

typedef struct {
    PyObject_HEAD CoreBoard *board;
    int n_envs, players, seat, reward_win, record, route_focus;
    uint64_t next_seed;
    IdSpace space;
    ObsLayout layout;
    EnvSlot *envs;
    Buf legal;
    Py_buffer obs, mask, rewards, dones; /* float32 [n, size], int8 [n, ids], float32 [n], int8 [n] */
    PyObject *claim_index;               /* owns space.claim_index's bytes */
} CoreBatch;

static int slot_record(EnvSlot *e, uint64_t code) {
    if (e->n_history == e->cap_history) {
        int cap = e->cap_history ? 2 * e->cap_history : 512;
        uint64_t *v = (uint64_t *)realloc(e->history, (size_t)cap * sizeof(uint64_t));
        if (v == NULL) return -1;
        e->history = v;
        e->cap_history = cap;
    }
    e->history[e->n_history++] = code;
    return 0;
}

/* Apply the opponents' random actions until the learner decides or the game ends. */
static int run_opponents(CoreBatch *b, EnvSlot *e) {
    const BoardT *board = &b->board->b;
    while (e->s.phase != PH_GAME_OVER && e->s.current != b->seat) {
        uint64_t code;
        if (b->route_focus) {
            int index;
            if (policy_choose(&e->s, board, &e->agents[e->s.current], &b->legal, &index)) return -1;
            code = b->legal.v[index];
        } else {
            if (legal_actions(&e->s, board, &b->legal)) return -1;
            code = b->legal.v[mt_below(&e->chooser, (uint32_t)b->legal.n)];
        }
        if (b->record && slot_record(e, code)) return -1;
        apply_action(&e->s, board, code);
    }
    return 0;
}

static int start_episode(CoreBatch *b, EnvSlot *e) {
    e->seed = b->next_seed++;
    mt_seed_u64(&e->s.rng, e->seed);
    mt_seed_u64(&e->chooser, e->seed);
    setup(&e->s, &b->board->b, b->players, -1);
    e->n_history = 0;
    for (int q = 0; q < b->players; q++) { /* RouteFocusAgent(seed=seed * players + q) */
        memset(&e->agents[q], 0, sizeof(Agent));
        mt_seed_u64(&e->agents[q].rng, e->seed * (uint64_t)b->players + (uint64_t)q);
    }
    return run_opponents(b, e);
}

/* The learner's legal ids into the mask row (clearing the last ones) and the observation row. */
static int publish(CoreBatch *b, int i) {
    EnvSlot *e = &b->envs[i];
    int8_t *mask = (int8_t *)b->mask.buf + (size_t)i * b->space.size;
    for (int k = 0; k < e->n_ids; k++)
        if (e->ids[k] >= 0) mask[e->ids[k]] = 0;
    if (legal_actions(&e->s, &b->board->b, &b->legal)) return -1;
    if (b->legal.n > e->cap) {
        int cap = b->legal.n * 2;
        int *ids = (int *)realloc(e->ids, (size_t)cap * sizeof(int));
        if (ids) e->ids = ids;
        uint64_t *codes = (uint64_t *)realloc(e->codes, (size_t)cap * sizeof(uint64_t));
        if (codes) e->codes = codes;
        if (ids == NULL || codes == NULL) return -1;
        e->cap = cap;
    }
    e->n_ids = b->legal.n;
    memcpy(e->codes, b->legal.v, (size_t)b->legal.n * sizeof(uint64_t));
    legal_ids(&e->s, &b->space, &b->legal, e->ids);
    for (int k = 0; k < e->n_ids; k++)
        if (e->ids[k] >= 0) mask[e->ids[k]] = 1;
    encode_obs(&e->s, &b->board->b, &b->layout, b->seat, (float *)b->obs.buf + (size_t)i * b->layout.size);
    return 0;
}

static float end_reward(CoreBatch *b, const State *s) {
    Result r;
    score(s, &b->board->b, &r, 0);
    if (b->reward_win) {
        for (int w = 0; w < r.n_winners; w++)
            if (r.winners[w] == b->seat) return 1.0f;
        return -1.0f;
    }
    int best_other = -1000000;
    for (int q = 0; q < s->players; q++)
        if (q != b->seat && r.total[q] > best_other) best_other = r.total[q];
    return (float)(r.total[b->seat] - best_other);
}

static PyTypeObject CoreBatchType;

static void CoreBatch_dealloc(CoreBatch *self) {
    if (self->envs) {
        for (int i = 0; i < self->n_envs; i++) {
            free(self->envs[i].ids);
            free(self->envs[i].codes);
            free(self->envs[i].history);
        }
        free(self->envs);
    }
    free(self->legal.v);
    if (self->obs.obj) PyBuffer_Release(&self->obs);
    if (self->mask.obj) PyBuffer_Release(&self->mask);
    if (self->rewards.obj) PyBuffer_Release(&self->rewards);
    if (self->dones.obj) PyBuffer_Release(&self->dones);
    Py_XDECREF(self->claim_index);
    Py_XDECREF(self->board);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int get_buffer(PyObject *obj, Py_buffer *view, const char *format, Py_ssize_t items, const char *what) {
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) return -1;
    /* int64 is 'l' or 'q' depending on the platform */
    int same = strcmp(view->format, format) == 0 || (format[0] == 'q' && strcmp(view->format, "l") == 0);
    if (!same || view->len != items * view->itemsize || (format[0] == 'q' && view->itemsize != 8)) {
        PyErr_Format(PyExc_ValueError, "%s must be a C-contiguous '%s' buffer of %zd items", what, format, items);
        PyBuffer_Release(view);
        view->obj = NULL;
        return -1;
    }
    return 0;
}

/* CoreBatch(board, n_envs, players, seat, seed, win_reward, record, route_focus, space, claim_index,
 * slotted, layout, obs, mask, rewards, dones): route_focus for Route Focus opponents (else random); space is (size, face_up, blind, tickets, keep, decline,
 * pass, extra, claim); claim_index the int32 bytes of [route][slot + 1][locos][total]; slotted
 * the route ids of gray ferries and Murmansk-Lieksa; layout observation.py's offsets. */
static int CoreBatch_init(CoreBatch *self, PyObject *args, PyObject *kwds) {
    PyObject *board, *space, *claim_index, *slotted, *layout, *obs, *mask, *rewards, *dones;
    int n_envs, players, seat, win, record, route_focus;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "O!iiiKpppOOOOOOOO", &CoreBoardType, &board, &n_envs, &players, &seat, &seed, &win,
                          &record, &route_focus, &space, &claim_index, &slotted, &layout, &obs, &mask, &rewards,
                          &dones))
        return -1;
    if (self->envs != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "CoreBatch is initialised once");
        return -1;
    }
    if (n_envs < 1 || n_envs > 1000000 || players < 2 || players > 3 || seat < 0 || seat >= players) {
        PyErr_SetString(PyExc_ValueError, "1 to 10**6 environments, 2 or 3 players, a seat among them");
        return -1;
    }
    Py_INCREF(board);
    self->board = (CoreBoard *)board;
    const BoardT *bt = &self->board->b;
    int *sp = &self->space.size;
    if (!PyArg_ParseTuple(space, "iiiiiiiii", sp, sp + 1, sp + 2, sp + 3, sp + 4, sp + 5, sp + 6, sp + 7, sp + 8))
        return -1;
    int *lo = &self->layout.size;
    if (!PyArg_ParseTuple(layout, "iiiiiiiiiiii", lo, lo + 1, lo + 2, lo + 3, lo + 4, lo + 5, lo + 6, lo + 7, lo + 8,
                          lo + 9, lo + 10, lo + 11))
        return -1;
    if (self->layout.routes_end != 3 * bt->n_routes || self->layout.tunnel_start + 2 * NK + 2 != self->layout.size) {
        PyErr_SetString(PyExc_ValueError, "the observation layout does not fit this board");
        return -1;
    }
    if (!PyBytes_Check(claim_index) ||
        PyBytes_GET_SIZE(claim_index) != (Py_ssize_t)sizeof(int32_t) * bt->n_routes * ID_SLOTS * ID_LOCOS * ID_TOTALS) {
        PyErr_SetString(PyExc_ValueError, "claim_index must be the int32 bytes of [route][10][15][37]");
        return -1;
    }
    Py_INCREF(claim_index);
    self->claim_index = claim_index;
    self->space.claim_index = (int32_t *)PyBytes_AS_STRING(claim_index);
    Py_ssize_t ns = PySequence_Length(slotted);
    if (ns < 0) return -1;
    for (Py_ssize_t i = 0; i < ns; i++) {
        int r;
        if (int_item(slotted, i, &r)) return -1;
        if (r < 0 || r >= bt->n_routes) {
            PyErr_SetString(PyExc_ValueError, "a slotted route id is out of range");
            return -1;
        }
        self->space.slotted[r] = 1;
    }
    if (get_buffer(obs, &self->obs, "f", (Py_ssize_t)n_envs * self->layout.size, "obs") ||
        get_buffer(mask, &self->mask, "b", (Py_ssize_t)n_envs * self->space.size, "mask") ||
        get_buffer(rewards, &self->rewards, "f", n_envs, "rewards") ||
        get_buffer(dones, &self->dones, "b", n_envs, "dones"))
        return -1;
    self->n_envs = n_envs;
    self->players = players;
    self->seat = seat;
    self->reward_win = win;
    self->record = record;
    self->route_focus = route_focus;
    self->next_seed = seed;
    self->envs = (EnvSlot *)calloc((size_t)n_envs, sizeof(EnvSlot));
    if (self->envs == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static PyObject *CoreBatch_reset(CoreBatch *self, PyObject *unused) {
    if (self->envs == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "CoreBatch is not initialised");
        return NULL;
    }
    memset(self->mask.buf, 0, (size_t)self->mask.len);
    memset(self->rewards.buf, 0, (size_t)self->rewards.len);
    memset(self->dones.buf, 0, (size_t)self->dones.len);
    for (int i = 0; i < self->n_envs; i++) {
        self->envs[i].n_ids = 0;
        if (start_episode(self, &self->envs[i]) || publish(self, i)) return PyErr_NoMemory();
    }
    Py_RETURN_NONE;
}

/* step(actions): one action id per environment (an int64 buffer), each legal in its game (else
 * ValueError naming the first that is not, and nothing changes). Finished games score their
 * reward, raise their done flag and start the next episode. */
static PyObject *CoreBatch_step(CoreBatch *self, PyObject *arg) {
    Py_buffer acts;
    if (self->envs == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "CoreBatch is not initialised");
        return NULL;
    }
    if (PyObject_GetBuffer(arg, &acts, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (strcmp(acts.format, "q") != 0 && strcmp(acts.format, "l") != 0) {
        PyBuffer_Release(&acts);
        PyErr_SetString(PyExc_TypeError, "actions must be an int64 array");
        return NULL;
    }
    if (acts.len != (Py_ssize_t)sizeof(int64_t) * self->n_envs) {
        PyBuffer_Release(&acts);
        PyErr_Format(PyExc_ValueError, "actions must hold one id per environment (%d)", self->n_envs);
        return NULL;
    }
    const int64_t *ids = (const int64_t *)acts.buf;
    int *chosen = (int *)malloc((size_t)self->n_envs * sizeof(int));
    if (chosen == NULL) {
        PyBuffer_Release(&acts);
        return PyErr_NoMemory();
    }
    for (int i = 0; i < self->n_envs; i++) {
        EnvSlot *e = &self->envs[i];
        chosen[i] = -1;
        for (int k = 0; k < e->n_ids; k++)
            if (e->ids[k] == ids[i]) {
                chosen[i] = k;
                break;
            }
        if (chosen[i] < 0) {
            PyErr_Format(PyExc_ValueError, "environment %d: action %lld is not legal now", i, (long long)ids[i]);
            free(chosen);
            PyBuffer_Release(&acts);
            return NULL;
        }
    }
    PyBuffer_Release(&acts);
    float *rewards = (float *)self->rewards.buf;
    int8_t *dones = (int8_t *)self->dones.buf;
    int failed = 0;
    for (int i = 0; i < self->n_envs && !failed; i++) {
        EnvSlot *e = &self->envs[i];
        uint64_t code = e->codes[chosen[i]];
        if (self->record && slot_record(e, code)) failed = 1;
        apply_action(&e->s, &self->board->b, code);
        if (run_opponents(self, e)) failed = 1;
        rewards[i] = 0.0f;
        dones[i] = 0;
        if (e->s.phase == PH_GAME_OVER) {
            rewards[i] = end_reward(self, &e->s);
            dones[i] = 1;
            if (start_episode(self, e)) failed = 1;
        }
        if (publish(self, i)) failed = 1;
    }
    free(chosen);
    if (failed) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* sample(out, seed): a uniformly random legal id per environment into the int64 buffer out
 * (random.Random(seed)'s numbers: a random player, and the benchmark's actions). */
static PyObject *CoreBatch_sample(CoreBatch *self, PyObject *args) {
    PyObject *out_obj, *seed;
    if (!PyArg_ParseTuple(args, "OO", &out_obj, &seed)) return NULL;
    if (self->envs == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "CoreBatch is not initialised");
        return NULL;
    }
    Py_buffer out;
    if (get_buffer(out_obj, &out, "q", self->n_envs, "out")) return NULL;
    MT rng;
    if (mt_seed_object(&rng, seed)) {
        PyBuffer_Release(&out);
        return NULL;
    }
    int64_t *ids = (int64_t *)out.buf;
    for (int i = 0; i < self->n_envs; i++) {
        const EnvSlot *e = &self->envs[i];
        ids[i] = e->n_ids ? e->ids[mt_below(&rng, (uint32_t)e->n_ids)] : -1;
    }
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

static PyObject *CoreBatch_episode(CoreBatch *self, PyObject *arg) {
    long i = PyLong_AsLong(arg);
    if (i == -1 && PyErr_Occurred()) return NULL;
    if (self->envs == NULL || i < 0 || i >= self->n_envs) {
        PyErr_SetString(PyExc_IndexError, "no such environment");
        return NULL;
    }
    EnvSlot *e = &self->envs[i];
    PyObject *codes = PyList_New(e->n_history);
    if (codes == NULL) return NULL;
    for (int k = 0; k < e->n_history; k++) PyList_SET_ITEM(codes, k, PyLong_FromUnsignedLongLong(e->history[k]));
    return Py_BuildValue("(KN)", (unsigned long long)e->seed, codes);
}

static PyMethodDef CoreBatch_methods[] = {
    {"reset", (PyCFunction)CoreBatch_reset, METH_NOARGS, "start an episode in every environment"},
    {"step", (PyCFunction)CoreBatch_step, METH_O, "one action id per environment"},
    {"sample", (PyCFunction)CoreBatch_sample, METH_VARARGS, "a random legal id per environment"},
    {"episode", (PyCFunction)CoreBatch_episode, METH_O, "(seed, action codes so far) of an environment's episode"},
    {NULL},
};

static PyTypeObject CoreBatchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ttr_nordic.fast._core.CoreBatch",
    .tp_basicsize = sizeof(CoreBatch),
    .tp_dealloc = (destructor)CoreBatch_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)CoreBatch_init,
    .tp_methods = CoreBatch_methods,
    .tp_doc = "N games stepped together with observations and masks (see ttr_nordic.rl.batched).",
};



/* ------------------------------------------------------------ engine states in and out */

static int dict_ints(PyObject *fields, const char *key, int *out, int n, int lo, int hi) {
    PyObject *seq = PyDict_GetItemString(fields, key);
    if (seq == NULL) {
        PyErr_Format(PyExc_KeyError, "state field %s is missing", key);
        return -1;
    }
    Py_ssize_t len = PySequence_Length(seq);
    if (len < 0) return -1;
    if (n >= 0 && len != n) {
        PyErr_Format(PyExc_ValueError, "state field %s has %zd items, not %d", key, len, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        if (int_item(seq, i, &out[i])) return -1;
        if (out[i] < lo || out[i] > hi) {
            PyErr_Format(PyExc_ValueError, "state field %s holds %d, out of range", key, out[i]);
            return -1;
        }
    }
    return (int)len;
}

static int dict_int(PyObject *fields, const char *key, int *out) {
    PyObject *v = PyDict_GetItemString(fields, key);
    if (v == NULL) {
        PyErr_Format(PyExc_KeyError, "state field %s is missing", key);
        return -1;
    }
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    *out = (int)x;
    return 0;
}

static int dict_rows(PyObject *fields, const char *key, int players, int row_len, int *rows, int *lens, int hi) {
    PyObject *seq = PyDict_GetItemString(fields, key);
    if (seq == NULL || PySequence_Length(seq) != players) {
        if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "state field %s needs one row per player", key);
        return -1;
    }
    for (int p = 0; p < players; p++) {
        PyObject *row = PySequence_GetItem(seq, p);
        if (row == NULL) return -1;
        Py_ssize_t len = PySequence_Length(row);
        int bad = len < 0 || len > row_len;
        for (Py_ssize_t i = 0; i < len && !bad; i++) {
            int v;
            bad = int_item(row, i, &v) != 0 || v < 0 || v > hi;
            if (!bad) rows[p * row_len + i] = v;
        }
        Py_DECREF(row);
        if (bad) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "state field %s has a bad row", key);
            return -1;
        }
        lens[p] = (int)len;
    }
    return 0;
}

/* from_fields(board, fields, mt): a game with the fields of state_fields() (and the engine's
 * rng.getstate()[1]: 624 words and the position) -- an engine state moved into the core. */
static PyObject *from_fields(PyObject *mod, PyObject *args) {
    PyObject *board, *fields, *mt;
    if (!PyArg_ParseTuple(args, "O!O!O", &CoreBoardType, &board, &PyDict_Type, &fields, &mt)) return NULL;
    CoreGame *g = new_game((CoreBoard *)board);
    if (g == NULL) return NULL;
    const BoardT *b = &g->board->b;
    State *s = &g->s;
    memset(s, 0, sizeof(State));
    int tmp[MAX_ROUTES * MAX_PLAYERS], lens[MAX_PLAYERS], n;
    PyObject *owner_seq = PyDict_GetItemString(fields, "trains");
    int players = owner_seq == NULL ? -1 : (int)PySequence_Length(owner_seq);
    if (players < 2 || players > 3) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "2 or 3 players");
        goto fail;
    }
    s->players = players;
    if ((n = dict_ints(fields, "deck", tmp, -1, 0, NK - 1)) < 0) goto fail;
    if (n > DECK_SIZE) goto range;
    s->deck_n = n;
    for (int i = 0; i < n; i++) s->deck[i] = (uint8_t)tmp[i];
    if (dict_ints(fields, "discard", s->discard, NK, 0, DECK_SIZE) < 0) goto fail;
    if (dict_ints(fields, "display", s->display, SLOTS, -1, NK - 1) < 0) goto fail;
    if (dict_rows(fields, "hands", players, NK, tmp, lens, DECK_SIZE)) goto fail;
    for (int p = 0; p < players; p++) memcpy(s->hands[p], tmp + p * NK, NK * sizeof(int));
    if (dict_rows(fields, "known", players, NK, tmp, lens, DECK_SIZE)) goto fail;
    for (int p = 0; p < players; p++) memcpy(s->known[p], tmp + p * NK, NK * sizeof(int));
    const char *ticket_rows[3] = {"tickets", "returned_tickets", "offers"};
    for (int k = 0; k < 3; k++) {
        if (dict_rows(fields, ticket_rows[k], players, MAX_TICKETS, tmp, lens, b->n_tickets - 1)) goto fail;
        for (int p = 0; p < players; p++) {
            if (k == 2 && lens[p] > SLOTS) goto range;
            uint8_t *dst = k == 0 ? s->tickets[p] : k == 1 ? s->returned[p] : s->offers[p];
            for (int i = 0; i < lens[p]; i++) dst[i] = (uint8_t)tmp[p * MAX_TICKETS + i];
            if (k == 0) s->n_tickets[p] = lens[p];
            if (k == 1) s->n_returned[p] = lens[p];
            if (k == 2) s->n_offer[p] = lens[p];
        }
    }
    if ((n = dict_ints(fields, "ticket_deck", tmp, -1, 0, b->n_tickets - 1)) < 0) goto fail;
    if (n > MAX_TICKETS) goto range;
    s->tdeck_n = n;
    for (int i = 0; i < n; i++) s->tdeck[i] = (uint8_t)tmp[i];
    if (dict_ints(fields, "route_owner", tmp, b->n_routes, -1, players - 1) < 0) goto fail;
    for (int r = 0; r < b->n_routes; r++) s->owner[r] = (int8_t)tmp[r];
    if (dict_ints(fields, "trains", s->trains, players, 0, TRAINS_PER_PLAYER) < 0) goto fail;
    if (dict_ints(fields, "scores", s->scores, players, 0, 100000) < 0) goto fail;
    if (dict_int(fields, "current", &s->current) || dict_int(fields, "phase", &s->phase) ||
        dict_int(fields, "first_player", &s->first_player) ||
        dict_int(fields, "final_turns_left", &s->final_turns_left) ||
        dict_int(fields, "final_round_trigger", &s->final_round_trigger) ||
        dict_int(fields, "consecutive_passes", &s->consecutive_passes) || dict_int(fields, "turn", &s->turn))
        goto fail;
    if (s->current < 0 || s->current >= players || s->phase < 0 || s->phase > PH_GAME_OVER || s->first_player < 0 ||
        s->first_player >= players)
        goto range;
    PyObject *tunnel = PyDict_GetItemString(fields, "tunnel");
    if (tunnel != NULL && tunnel != Py_None) {
        PyObject *base, *revealed;
        if (!PyArg_ParseTuple(tunnel, "iOOiii", &s->t_route, &base, &revealed, &s->t_needed, &s->t_color,
                              &s->t_loco_only))
            goto fail;
        PyObject *sub = PyDict_New();
        if (sub == NULL) goto fail;
        PyDict_SetItemString(sub, "base", base);
        PyDict_SetItemString(sub, "revealed", revealed);
        int bad = dict_ints(sub, "base", s->t_base, NK, 0, DECK_SIZE) < 0 ||
                  (s->t_n_revealed = dict_ints(sub, "revealed", s->t_revealed, -1, 0, NK - 1)) < 0;
        Py_DECREF(sub);
        if (bad || s->t_n_revealed > 3 || s->t_route < 0 || s->t_route >= b->n_routes || s->t_color < 0 ||
            s->t_color > LOCO) {
            if (!PyErr_Occurred()) goto range;
            goto fail;
        }
        s->tunnel_active = 1;
    }
    for (int r = 0; r < b->n_routes; r++)
        if (s->owner[r] >= 0) {
            /* the closed sets as place() leaves them */
            int twin = b->routes[r].twin, p = s->owner[r];
            for (int q = 0; q < players; q++) {
                s->closed[q][r >> 6] |= (uint64_t)1 << (r & 63);
                if (twin >= 0 && (players == 2 || q == p)) s->closed[q][twin >> 6] |= (uint64_t)1 << (twin & 63);
            }
        }
    if (PySequence_Length(mt) != 625) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "the generator state is 624 words and a position");
        goto fail;
    }
    for (int i = 0; i < 625; i++) {
        PyObject *v = PySequence_GetItem(mt, i);
        if (v == NULL) goto fail;
        unsigned long x = PyLong_AsUnsignedLong(v);
        Py_DECREF(v);
        if (x == (unsigned long)-1 && PyErr_Occurred()) goto fail;
        if (i < 624)
            s->rng.mt[i] = (uint32_t)x;
        else if (x > 624)
            goto range;
        else
            s->rng.mti = (int)x;
    }
    return (PyObject *)g;
range:
    PyErr_SetString(PyExc_ValueError, "a state field is out of range");
fail:
    Py_DECREF(g);
    return NULL;
}

/* rng_state(): the generator's 624 words and position, as random.Random.getstate()[1]. */
static PyObject *CoreGame_rng_state(CoreGame *self, PyObject *unused) {
    PyObject *out = PyTuple_New(625);
    if (out == NULL) return NULL;
    for (int i = 0; i < 624; i++) PyTuple_SET_ITEM(out, i, PyLong_FromUnsignedLong(self->s.rng.mt[i]));
    PyTuple_SET_ITEM(out, 624, PyLong_FromLong(self->s.rng.mti));
    return out;
}

/* play_out(seed, horizon, policies, max_actions=3000): ai.expert.play_out in the core: every seat
 * plays Route Focus (policies: one (light, long_weights) pair per seat), seat q's agent seeded
 * seed + q; stops at the end or after horizon actions (0: none). RuntimeError past max_actions. */
static PyObject *CoreGame_play_out(CoreGame *self, PyObject *args) {
    unsigned long long seed;
    int horizon, max_actions = 3000;
    PyObject *policies;
    if (!PyArg_ParseTuple(args, "KiO|i", &seed, &horizon, &policies, &max_actions)) return NULL;
    int players = self->s.players;
    if (PySequence_Length(policies) != players) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "one (light, long_weights) pair per seat");
        return NULL;
    }
    Agent agents[MAX_PLAYERS];
    memset(agents, 0, sizeof(agents));
    for (int q = 0; q < players; q++) {
        PyObject *pair = PySequence_GetItem(policies, q);
        if (pair == NULL) return NULL;
        int ok = PyArg_ParseTuple(pair, "pp", &agents[q].light, &agents[q].long_weights);
        Py_DECREF(pair);
        if (!ok) return NULL;
        mt_seed_u64(&agents[q].rng, seed + (uint64_t)q);
    }
    int failed = 0, count = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (; count < max_actions; count++) {
        if (self->s.phase == PH_GAME_OVER || (horizon > 0 && count == horizon)) break;
        int index;
        if (policy_choose(&self->s, &self->board->b, &agents[self->s.current], &self->legal, &index)) {
            failed = 1;
            break;
        }
        apply_action(&self->s, &self->board->b, self->legal.v[index]);
    }
    Py_END_ALLOW_THREADS;
    if (failed) return PyErr_NoMemory();
    if (count == max_actions) {
        PyErr_SetString(PyExc_RuntimeError, "rollout did not finish");
        return NULL;
    }
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------ Route Focus agents */

typedef struct {
    PyObject_HEAD Agent agent;
} CoreAgent;

static PyTypeObject CoreAgentType;

/* CoreAgent(seed, light=False, long_weights=False): RouteFocusAgent(seed=seed), or with light
 * LightRouteFocus, with long_weights their long-route variants (LongRouteFocus, LightLongRouteFocus). */
static int CoreAgent_init(CoreAgent *self, PyObject *args, PyObject *kwds) {
    PyObject *seed;
    int light = 0, long_weights = 0;
    static char *kwlist[] = {"seed", "light", "long_weights", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|pp", kwlist, &seed, &light, &long_weights)) return -1;
    if (!PyLong_Check(seed)) {
        PyErr_SetString(PyExc_TypeError, "the seed must be an int");
        return -1;
    }
    memset(&self->agent, 0, sizeof(Agent));
    if (mt_seed_object(&self->agent.rng, seed)) return -1;
    self->agent.light = light;
    self->agent.long_weights = long_weights;
    return 0;
}

/* choose(game): the code of the agent's action in the game's current decision. */
static PyObject *CoreAgent_choose(CoreAgent *self, PyObject *arg) {
    if (!PyObject_TypeCheck(arg, &CoreGameType)) {
        PyErr_SetString(PyExc_TypeError, "choose() takes a CoreGame");
        return NULL;
    }
    CoreGame *g = (CoreGame *)arg;
    if (g->s.phase == PH_GAME_OVER) {
        PyErr_SetString(PyExc_ValueError, "the game is over");
        return NULL;
    }
    int index;
    if (policy_choose(&g->s, &g->board->b, &self->agent, &g->legal, &index)) return PyErr_NoMemory();
    return PyLong_FromUnsignedLongLong(g->legal.v[index]);
}

static PyMethodDef CoreAgent_methods[] = {
    {"choose", (PyCFunction)CoreAgent_choose, METH_O, "the agent's action code for the game's decision"},
    {NULL},
};

static PyTypeObject CoreAgentType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ttr_nordic.fast._core.CoreAgent",
    .tp_basicsize = sizeof(CoreAgent),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)CoreAgent_init,
    .tp_methods = CoreAgent_methods,
    .tp_doc = "Route Focus in the core: CoreAgent(seed, light=False, long_weights=False).",
};

/* play_route_focus(board, players, first_seed, games, light): Route Focus against Route Focus as
 * benchmarks/engine_speed.py plays it (GameState.new(players, seed=s), the agent of seat q seeded
 * s * players + q). Returns (actions, every game's totals). */
static PyObject *play_route_focus(PyObject *mod, PyObject *args) {
    CoreBoard *board;
    int players, light;
    long long first_seed, games;
    if (!PyArg_ParseTuple(args, "O!iLLp", &CoreBoardType, &board, &players, &first_seed, &games, &light)) return NULL;
    if (players < 2 || players > 3 || first_seed < 0 || games < 0 || games > 100000000) {
        PyErr_SetString(PyExc_ValueError, "2 or 3 players, a non-negative first seed, 0 to 10**8 games");
        return NULL;
    }
    Buf legal = {NULL, 0, 0};
    State *s = (State *)malloc(sizeof(State));
    Agent *agents = (Agent *)calloc(3, sizeof(Agent));
    int *totals = (int *)malloc((size_t)(games * players + 1) * sizeof(int));
    long long actions = 0;
    int failed = s == NULL || agents == NULL || totals == NULL;
    Py_BEGIN_ALLOW_THREADS;
    for (long long g = 0; g < games && !failed; g++) {
        uint64_t seed = (uint64_t)(first_seed + g);
        mt_seed_u64(&s->rng, seed);
        setup(s, &board->b, players, -1);
        for (int q = 0; q < players; q++) {
            memset(&agents[q], 0, sizeof(Agent));
            mt_seed_u64(&agents[q].rng, seed * (uint64_t)players + (uint64_t)q);
            agents[q].light = light;
        }
        while (s->phase != PH_GAME_OVER && s->n_actions < 10000) {
            int index;
            if (policy_choose(s, &board->b, &agents[s->current], &legal, &index)) {
                failed = 1;
                break;
            }
            apply_action(s, &board->b, legal.v[index]);
        }
        actions += s->n_actions;
        Result r;
        score(s, &board->b, &r, 0);
        for (int p = 0; p < players; p++) totals[g * players + p] = r.total[p];
    }
    Py_END_ALLOW_THREADS;
    PyObject *out = failed ? PyErr_NoMemory() : PyList_New((Py_ssize_t)(games * players));
    for (long long i = 0; out != NULL && i < games * players; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(totals[i]));
    free(s);
    free(agents);
    free(totals);
    free(legal.v);
    if (out == NULL) return NULL;
    return Py_BuildValue("(LN)", actions, out);
}

static PyMethodDef module_methods[] = {
    {"play_random", play_random, METH_VARARGS, "play seeded random games; (actions, totals)"},
    {"from_fields", from_fields, METH_VARARGS, "a game from an engine state's fields and generator"},
    {"play_route_focus", play_route_focus, METH_VARARGS, "play seeded Route Focus games; (actions, totals)"},
    {NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_core", "The compiled core of the Nordic Countries rules.", -1,
                                    module_methods};

PyMODINIT_FUNC PyInit__core(void) {
    if (PyType_Ready(&CoreBoardType) < 0 || PyType_Ready(&CoreGameType) < 0 || PyType_Ready(&CoreBatchType) < 0 ||
        PyType_Ready(&CoreAgentType) < 0)
        return NULL;
    scaled_tables_init();
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddObjectRef(m, "CoreBoard", (PyObject *)&CoreBoardType) < 0 ||
        PyModule_AddObjectRef(m, "CoreGame", (PyObject *)&CoreGameType) < 0 ||
        PyModule_AddObjectRef(m, "CoreBatch", (PyObject *)&CoreBatchType) < 0 ||
        PyModule_AddObjectRef(m, "CoreAgent", (PyObject *)&CoreAgentType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
