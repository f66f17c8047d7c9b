/* The batched environment (CoreBatch, wrapped by ttr_nordic.rl.batched): rl/actions.py's action
 * ids and rl/observation.py's observation vector of N games, written into NumPy arrays.
 * Part of the compiled core: included by _core.c, in the order given there. */
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

/* claim_id of a claim code on a route that is not slotted, read from the code's packed counts (4
 * bits a kind: colors 0..7, then locomotives) without unpacking them when it pays one color. */
static inline int claim_code_id(const IdSpace *sp, int route, uint64_t code) {
    uint64_t x = code >> 11, colors = x & 0xFFFFFFFFULL;
    uint64_t pairs = (x & 0x0F0F0F0F0FULL) + ((x >> 4) & 0x0F0F0F0F0FULL); /* two kinds a byte */
    int total = (int)(((pairs * 0x0101010101ULL) >> 32) & 0xFFU), slot = -1;
    if (colors != 0) {
        uint64_t paid = (colors | colors >> 1 | colors >> 2 | colors >> 3) & 0x11111111ULL; /* a bit a color */
        if ((paid & (paid - 1)) == 0) {
            slot = __builtin_ctzll(paid) / 4;
        } else {
            int pay[NK];
            unpack_counts(code, pay);
            slot = main_color(pay);
        }
    }
    return claim_id(sp, route, slot, (int)((x >> 32) & 15U), total);
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
        if (!sp->slotted[arg]) { /* a claim whose id is its own */
            ids[i++] = claim_code_id(sp, arg, code);
            continue;
        }
        /* Claims on a slotted route: the route's run at once. */
        int start = i;
        while (i < legal->n && (legal->v[i] & 7U) == ACT_CLAIM && (int)((legal->v[i] >> 3) & 255U) == arg) i++;
        int pays[i - start][NK], totals[i - start];
        for (int j = start; j < i; j++) {
            unpack_counts(legal->v[j], pays[j - start]);
            totals[j - start] = 0;
            for (int k = 0; k < NK; k++) totals[j - start] += pays[j - start][k];
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
    float ticket_shares[MAX_TICKETS + 1]; /* c / the board's tickets, as observation.py scales it (parse_space) */
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

/* What encode_obs works out from the claimed routes alone, for one seat: the vector's route block
 * and the union-find of the cities over the seat's own routes. A cache keeps it between calls and
 * works on it again only when the routes' owners or the seat's closed routes differ from those it
 * was made from (an exact key, so any state may come next: another game, another seat count);
 * where the game has only gone on since, it adds the new routes alone (route_parts_grown). */
typedef struct {
    int valid, players, seat;
    uint64_t closed[2];
    int8_t owner[MAX_ROUTES];
    int component[MAX_CITIES];
    float routes[OBS_ROUTES_END(MAX_ROUTES)];
} RouteBlock;

/* How many places seat q sits after seat me, of n: (q - me) mod n, without dividing. */
static inline int places_after(int q, int me, int n) { return q >= me ? q - me : q - me + n; }

/* The route block of seat me written into routes (zeroed by the caller), and parent made the
 * union-find of the cities over me's own routes. */
static void route_parts(const State *s, const BoardT *board, int me, float *routes, int *parent) {
    int n = s->players, relative[MAX_PLAYERS];
    for (int q = 0; q < n; q++) relative[q] = places_after(q, me, n);
    for (int c = 0; c < board->n_cities; c++) parent[c] = c;
    for (int w = 0; w < 2; w++) { /* the claimed routes, closed to the viewer, in route order */
        uint64_t bits = s->closed[me][w];
        while (bits) {
            int r = 64 * w + __builtin_ctzll(bits);
            bits &= bits - 1;
            if (s->owner[r] < 0) continue;
            routes[r * 3 + relative[s->owner[r]]] = 1.0f;
            if (s->owner[r] != me) continue;
            int ra = uf_find(parent, board->routes[r].a), rb = uf_find(parent, board->routes[r].b);
            if (ra != rb) parent[ra] = rb;
        }
    }
}

/* The cache brought up to s where s only adds to what it was made from (as a game goes on): routes
 * newly closed to me, none reopened, and owners changed only on those, each from none. Their cells
 * are set and me's among them joined in the union-find (which cities connect does not depend on
 * the order). 0, and nothing changed, where s is not such a state. */
static int route_parts_grown(const State *s, const BoardT *board, int me, RouteBlock *cache) {
    int n = s->players, nr = board->n_routes;
    if (!cache->valid || cache->players != n || cache->seat != me || (cache->closed[0] & ~s->closed[me][0]) != 0 ||
        (cache->closed[1] & ~s->closed[me][1]) != 0)
        return 0;
    uint64_t fresh[2] = {s->closed[me][0] & ~cache->closed[0], s->closed[me][1] & ~cache->closed[1]};
    int8_t owner[MAX_ROUTES];
    memcpy(owner, cache->owner, (size_t)nr);
    for (int w = 0; w < 2; w++)
        for (uint64_t bits = fresh[w]; bits; bits &= bits - 1) {
            int r = 64 * w + __builtin_ctzll(bits);
            if (owner[r] >= 0) return 0;
            owner[r] = s->owner[r];
        }
    if (memcmp(owner, s->owner, (size_t)nr) != 0) return 0;
    for (int w = 0; w < 2; w++)
        for (uint64_t bits = fresh[w]; bits; bits &= bits - 1) {
            int r = 64 * w + __builtin_ctzll(bits), q = s->owner[r];
            if (q < 0) continue;
            cache->routes[r * 3 + places_after(q, me, n)] = 1.0f;
            if (q != me) continue;
            int ra = uf_find(cache->component, board->routes[r].a), rb = uf_find(cache->component, board->routes[r].b);
            if (ra != rb) cache->component[ra] = rb;
        }
    return 1;
}

/* encode_view(state.view(me)) written into out (size floats); with a cache (NULL: none), the
 * route block comes from it while the routes stay as they were. */
static void encode_obs_cached(const State *s, const BoardT *board, const ObsLayout *L, int me, float *out,
                              RouteBlock *cache) {
    int n = s->players, parent[MAX_CITIES], *component = parent;
    int ahead[MAX_PLAYERS]; /* ahead[r]: the seat r places after me ((me + r) % n, without dividing) */
    for (int r = 0, q = me; r < n; r++, q = q + 1 == n ? 0 : q + 1) ahead[r] = q;
    if (cache == NULL) {
        memset(out, 0, (size_t)L->size * sizeof(float));
        route_parts(s, board, me, out, parent);
    } else {
        if (!cache->valid || cache->players != n || cache->seat != me || cache->closed[0] != s->closed[me][0] ||
            cache->closed[1] != s->closed[me][1] || memcmp(cache->owner, s->owner, (size_t)board->n_routes) != 0) {
            if (!route_parts_grown(s, board, me, cache)) {
                memset(cache->routes, 0, (size_t)L->routes_end * sizeof(float));
                route_parts(s, board, me, cache->routes, cache->component);
            }
            cache->players = n, cache->seat = me;
            cache->closed[0] = s->closed[me][0], cache->closed[1] = s->closed[me][1];
            memcpy(cache->owner, s->owner, (size_t)board->n_routes);
            cache->valid = 1;
        }
        memcpy(out, cache->routes, (size_t)L->routes_end * sizeof(float));
        memset(out + L->routes_end, 0, (size_t)(L->size - L->routes_end) * sizeof(float));
        component = cache->component;
    }
    int at = L->routes_end;
    for (int k = 0; k < NK; k++) out[at + k] = scaled(twelfths, s->hands[me][k]);
    for (int q = 1; q < n; q++)
        for (int k = 0; k < NK; k++) out[L->known_start + (q - 1) * NK + k] = scaled(twelfths, s->known[ahead[q]][k]);
    for (int i = 0; i < SLOTS; i++)
        if (s->display[i] >= 0) out[L->display_start + i * NK + s->display[i]] = 1.0f;
    out[L->piles_start] = scaled(deck_shares, s->deck_n);
    for (int k = 0; k < NK; k++) out[L->piles_start + 1 + k] = scaled(twelfths, s->discard[k]);
    out[L->piles_start + 10] = L->ticket_shares[s->tdeck_n];
    /* own tickets and whether own routes complete them */
    for (int i = 0; i < s->n_tickets[me]; i++) {
        int t = s->tickets[me][i];
        out[L->tickets_start + 2 * t] = 1.0f;
        out[L->tickets_start + 2 * t + 1] =
            uf_find(component, board->tickets[t].a) == uf_find(component, board->tickets[t].b) ? 1.0f : 0.0f;
    }
    for (int i = 0; i < s->n_offer[me]; i++) out[L->offer_start + s->offers[me][i]] = 1.0f;
    for (int r = 0; r < n; r++) {
        int q = ahead[r], base = L->tickets_end + 5 * r;
        out[base] = scaled(fortieths, s->trains[q]);
        out[base + 1] = s->scores[q] >= 0 && s->scores[q] < 1000 ? hundredths[s->scores[q]] : f32(s->scores[q] / 100.0);
        out[base + 2] = scaled(fortieths, hand_sum(s->hands[q]));
        out[base + 3] = L->ticket_shares[s->n_tickets[q]];
        out[base + 4] = scaled(fifths, s->n_offer[q]);
    }
    out[L->phase_start + s->phase] = 1.0f;
    if (s->phase != PH_GAME_OVER) out[L->turn_start + places_after(s->current, me, n)] = 1.0f;
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

/* encode_view(state.view(me)) written into out (size floats). */
static void encode_obs(const State *s, const BoardT *board, const ObsLayout *L, int me, float *out) {
    encode_obs_cached(s, board, L, me, out, NULL);
}

/* The ids and the observation layout from Python (rl/batched.py's arguments, also CoreSpace's):
 * space is (size, face_up, blind, tickets, keep, decline, pass, extra, claim); claim_index the
 * int32 bytes of [route][slot + 1][locos][total]; slotted the route ids of gray ferries and
 * Murmansk-Lieksa; layout observation.py's offsets. The caller keeps claim_index alive. */
static int parse_space(const BoardT *bt, PyObject *space, PyObject *claim_index, PyObject *slotted, PyObject *layout,
                       IdSpace *out, ObsLayout *lay) {
    int *sp = &out->size;
    if (!PyArg_ParseTuple(space, "iiiiiiiii", sp, sp + 1, sp + 2, sp + 3, sp + 4, sp + 5, sp + 6, sp + 7, sp + 8))
        return -1;
    int *lo = &lay->size;
    if (!PyArg_ParseTuple(layout, "iiiiiiiiiiii", lo, lo + 1, lo + 2, lo + 3, lo + 4, lo + 5, lo + 6, lo + 7, lo + 8,
                          lo + 9, lo + 10, lo + 11))
        return -1;
    if (lay->routes_end != 3 * bt->n_routes || lay->tunnel_start + 2 * NK + 2 != lay->size) {
        PyErr_SetString(PyExc_ValueError, "the observation layout does not fit this board");
        return -1;
    }
    for (int c = 0; c <= MAX_TICKETS; c++) lay->ticket_shares[c] = f32(c / (double)bt->n_tickets);
    if (!PyBytes_Check(claim_index) ||
        PyBytes_GET_SIZE(claim_index) != (Py_ssize_t)sizeof(int32_t) * bt->n_routes * ID_SLOTS * ID_LOCOS * ID_TOTALS) {
        PyErr_SetString(PyExc_ValueError, "claim_index must be the int32 bytes of [route][10][15][37]");
        return -1;
    }
    out->claim_index = (int32_t *)PyBytes_AS_STRING(claim_index);
    Py_ssize_t ns = PySequence_Length(slotted);
    if (ns < 0) return -1;
    memset(out->slotted, 0, sizeof out->slotted);
    for (Py_ssize_t i = 0; i < ns; i++) {
        int r;
        if (int_item(slotted, i, &r)) return -1;
        if (r < 0 || r >= bt->n_routes) {
            PyErr_SetString(PyExc_ValueError, "a slotted route id is out of range");
            return -1;
        }
        out->slotted[r] = 1;
    }
    return 0;
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
    for (int q = 0; q < b->players && b->route_focus; q++) { /* RouteFocusAgent(seed=seed * players + q) */
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
    if (parse_space(&self->board->b, space, claim_index, slotted, layout, &self->space, &self->layout)) return -1;
    Py_INCREF(claim_index);
    self->claim_index = claim_index;
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
