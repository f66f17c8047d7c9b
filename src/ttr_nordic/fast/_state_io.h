/* Engine states moved into the core and back (FastGame.from_state / to_state), and the
 * expert's play-outs (CoreGame.play_out).
 * Part of the compiled core: included by _core.c, in the order given there. */
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

/* features(player): the value model's features of the player's view (ai/value/features.py). */
static PyObject *CoreGame_features(CoreGame *self, PyObject *arg) {
    long player = PyLong_AsLong(arg);
    if (player == -1 && PyErr_Occurred()) return NULL;
    if (player < 0 || player >= self->s.players) {
        PyErr_SetString(PyExc_ValueError, "no such player");
        return NULL;
    }
    double out[VALUE_FEATURES];
    value_features(&self->s, &self->board->b, (int)player, out);
    PyObject *list = PyList_New(VALUE_FEATURES);
    if (list == NULL) return NULL;
    for (int i = 0; i < VALUE_FEATURES; i++) PyList_SET_ITEM(list, i, PyFloat_FromDouble(out[i]));
    return list;
}
