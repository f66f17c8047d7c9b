/* Chosen draws: the deal, or one action of a game, with every card and ticket drawn chosen by
 * the caller (rl/openspiel.py's chance nodes). The chosen items are consumed in draw order; at
 * the first draw with none left the call stops and reports that draw's pile and its outcomes,
 * with the probabilities of the engine's draw hook path (engine/transitions.py, DrawHook):
 * card kinds by their count in the draw pile (after any reshuffle of the discard pile), tickets
 * uniformly. Each call runs on a copy of the state and keeps it only when every draw was chosen.
 * Part of the compiled core: included by _core.c, after _env.h. */
/* ------------------------------------------------------------------------- chosen draws */

#define MAX_CHOSEN 64 /* the deal draws 4 cards a player, 5 face up and 5 tickets a player: 38 at most */

static PyObject *key_card_pile, *key_ticket_pile;
#define MAX_KIND_COUNT 14 /* the most cards of one kind (locomotives) */
static PyObject *ticket_outcomes_cache[MAX_TICKETS][MAX_TICKETS + 1]; /* (ticket, 1 / total) */
static PyObject *card_outcomes_cache[DECK_SIZE + 1][NK][MAX_KIND_COUNT + 1]; /* (kind, count / total) */

/* chosen (a list of ints) into out; ValueError past MAX_CHOSEN items. */
static int chosen_items(PyObject *chosen, long *out, int *n) {
    if (!PyList_Check(chosen)) {
        PyErr_SetString(PyExc_TypeError, "chosen must be a list of ints");
        return -1;
    }
    Py_ssize_t size = PyList_GET_SIZE(chosen);
    if (size > MAX_CHOSEN) {
        PyErr_Format(PyExc_ValueError, "at most %d chosen items", MAX_CHOSEN);
        return -1;
    }
    for (Py_ssize_t i = 0; i < size; i++) {
        long v = PyLong_AsLong(PyList_GET_ITEM(chosen, i));
        if (v == -1 && PyErr_Occurred()) {
            if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
            PyErr_Clear();
            v = -1; /* in no pile */
        }
        out[i] = v;
    }
    *n = (int)size;
    return 0;
}

/* The (kind, count / total) tuple, made once and shared (a tuple of an int and a float). */
static PyObject *card_outcome(int kind, int count, int total) {
    if (total > DECK_SIZE || count > MAX_KIND_COUNT) /* not reached: no pile holds more */
        return Py_BuildValue("(id)", kind, (double)count / (double)total);
    PyObject **slot = &card_outcomes_cache[total][kind][count];
    if (*slot == NULL && (*slot = Py_BuildValue("(id)", kind, (double)count / (double)total)) == NULL) return NULL;
    return Py_NewRef(*slot);
}

/* The outcomes of the draw the plan stopped at, ascending, each with its weight out of the
 * pile's plan->n_items: the card kinds in the pile with their counts, or the tickets left with 1
 * each. How many (MAX_TICKETS at most). */
static int plan_weights(const DrawPlan *plan, int *outcomes, int *weights) {
    int total = plan->n_items, n = 0;
    if (plan->pile == 0) {
        int counts[NK] = {0};
        for (int i = 0; i < total; i++) counts[plan->items[i]]++;
        for (int k = 0; k < NK; k++)
            if (counts[k]) {
                outcomes[n] = k;
                weights[n++] = counts[k];
            }
        return n;
    }
    uint8_t sorted[MAX_TICKETS];
    memcpy(sorted, plan->items, (size_t)total);
    sort_small(sorted, total);
    for (int i = 0; i < total; i++) {
        outcomes[n] = sorted[i];
        weights[n++] = 1;
    }
    return n;
}

/* (pile, outcomes) of the draw the plan stopped at: "card" with [(kind, count / total)] for the
 * kinds in the pile, ascending; "ticket" with [(ticket, 1 / total)], ascending (plan_weights). */
static PyObject *plan_outcomes(const DrawPlan *plan) {
    int total = plan->n_items, kinds[MAX_TICKETS], weights[MAX_TICKETS];
    int n = plan_weights(plan, kinds, weights);
    PyObject *outcomes = PyList_New(n);
    if (outcomes == NULL) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *item;
        if (plan->pile == 0) {
            item = card_outcome(kinds[i], weights[i], total);
        } else {
            PyObject **slot = &ticket_outcomes_cache[kinds[i]][total];
            if (*slot == NULL) *slot = Py_BuildValue("(id)", kinds[i], 1.0 / (double)total);
            item = Py_XNewRef(*slot);
        }
        if (item == NULL) {
            Py_DECREF(outcomes);
            return NULL;
        }
        PyList_SET_ITEM(outcomes, i, item);
    }
    return Py_BuildValue("(ON)", plan->pile == 0 ? key_card_pile : key_ticket_pile, outcomes);
}

/* After a planned run: ValueError for a chosen item not in its pile or one too many; else 0. */
static int plan_checked(const DrawPlan *plan) {
    if (plan->bad) {
        PyErr_SetString(PyExc_ValueError, "a chosen item is not in its pile");
        return -1;
    }
    if (!plan->stopped && plan->used < plan->n_chosen) {
        PyErr_SetString(PyExc_ValueError, "more items chosen than drawn");
        return -1;
    }
    return 0;
}

#define ID_OBJECTS 8192
static PyObject *id_objects[ID_OBJECTS]; /* the action ids' int objects, made once (most ids are above 256) */

static PyObject *id_object(int id) {
    if (id < 0 || id >= ID_OBJECTS) return PyLong_FromLong(id);
    if (id_objects[id] == NULL && (id_objects[id] = PyLong_FromLong(id)) == NULL) return NULL;
    return Py_NewRef(id_objects[id]);
}

/* The legal ids of the game's decision, ascending (what OpenSpiel's legal_actions lists). */
static PyObject *sorted_ids_list(CoreGame *g, CoreSpace *sp) {
    if (env_legal(g, sp)) return NULL;
    int n = g->env_legal.n;
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    /* insertion sort into the list's own slots: the engine's order is nearly ascending */
    long prev = -1;
    int sorted = 1;
    for (int i = 0; i < n && sorted; i++) {
        sorted = g->env_ids[i] > prev;
        prev = g->env_ids[i];
    }
    int *ids = g->env_ids, *tmp = NULL;
    if (!sorted) {
        tmp = (int *)malloc((size_t)(n ? n : 1) * sizeof(int));
        if (tmp == NULL) {
            Py_DECREF(out);
            return PyErr_NoMemory();
        }
        for (int i = 0; i < n; i++) {
            int v = g->env_ids[i], j = i - 1;
            while (j >= 0 && tmp[j] > v) {
                tmp[j + 1] = tmp[j];
                j--;
            }
            tmp[j + 1] = v;
        }
        ids = tmp;
    }
    for (int i = 0; i < n; i++) {
        PyObject *v = id_object(ids[i]);
        if (v == NULL) {
            free(tmp);
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, v);
    }
    free(tmp);
    return out;
}

/* sorted_ids(space): the legal ids, ascending (empty once the game is over). */
static PyObject *CoreGame_sorted_ids(CoreGame *self, PyObject *arg) {
    CoreSpace *sp = space_arg(self, arg);
    if (sp == NULL) return NULL;
    return sorted_ids_list(self, sp);
}

/* The legal action id of g applied with the chosen draws (see apply_drawn below): the next legal
 * ids, or (pile, outcomes) with g unchanged; NULL with ValueError for an id that is not legal. */
static PyObject *drawn_step(CoreGame *g, CoreSpace *sp, long id, const long *chosen, int n_chosen) {
    if (g->s.phase == PH_GAME_OVER) {
        PyErr_SetString(PyExc_ValueError, "the game is over");
        return NULL;
    }
    if (env_legal(g, sp)) return NULL;
    int at = -1;
    for (int i = 0; i < g->env_legal.n && at < 0; i++)
        if (g->env_ids[i] == id) at = i;
    if (at < 0) {
        PyErr_Format(PyExc_ValueError, "action id %ld is not legal now", id);
        return NULL;
    }
    /* The interpreter lock is held from here to the end: one call at a time uses these. */
    static State copy_buffer;
    static DrawPlan plan_buffer;
    State *copy = &copy_buffer;
    DrawPlan *plan = &plan_buffer;
    memcpy(copy, &g->s, sizeof(State));
    plan->chosen = chosen;
    plan->n_chosen = n_chosen;
    plan->used = plan->stopped = plan->bad = 0;
    draw_plan = plan;
    apply_action(copy, &g->board->b, g->env_legal.v[at]);
    draw_plan = NULL;
    if (plan_checked(plan)) return NULL;
    if (plan->stopped) return plan_outcomes(plan);
    memcpy(&g->s, copy, sizeof(State));
    return sorted_ids_list(g, sp);
}

/* A long from an int object; beyond a long: -1 (no id, no item). */
static int long_arg(PyObject *arg, long *out) {
    long v = PyLong_AsLong(arg);
    if (v == -1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
        PyErr_Clear();
    }
    *out = v;
    return 0;
}

/* apply_drawn(space, id, chosen): apply the legal action with this id, its draws taking the
 * chosen items in order. When every draw had its item the game changes and the call returns
 * the next decision's legal ids, ascending (empty once the game is over); at the first draw
 * with no item left the game stays as it was and the call returns (pile, outcomes). ValueError
 * (and no change) for an id no legal action has, a chosen item not in its pile, or one too many. */
static PyObject *CoreGame_apply_drawn(CoreGame *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "apply_drawn(space, id, chosen) takes 3 arguments");
        return NULL;
    }
    CoreSpace *sp = space_arg(self, args[0]);
    if (sp == NULL) return NULL;
    long id, chosen[MAX_CHOSEN];
    int n_chosen;
    if (long_arg(args[1], &id) || chosen_items(args[2], chosen, &n_chosen)) return NULL;
    return drawn_step(self, sp, id, chosen, n_chosen);
}

static MT dealing_rng; /* the deal's shuffles (any order will do: every draw is chosen) */
static int dealing_rng_ready = 0;

/* The deal with the chosen draws (see dealt below): a new CoreGame, or (pile, outcomes). */
static PyObject *drawn_deal(CoreBoard *board, int players, int first, const long *chosen, int n_chosen) {
    if (!dealing_rng_ready) {
        mt_seed_u64(&dealing_rng, 0);
        dealing_rng_ready = 1;
    }
    CoreGame *g = new_game(board);
    if (g == NULL) return NULL;
    static DrawPlan plan_buffer;
    DrawPlan *plan = &plan_buffer;
    g->s.rng = dealing_rng;
    plan->chosen = chosen;
    plan->n_chosen = n_chosen;
    plan->used = plan->stopped = plan->bad = 0;
    draw_plan = plan;
    setup(&g->s, &board->b, players, first);
    draw_plan = NULL;
    PyObject *out = NULL;
    if (plan_checked(plan) == 0) out = plan->stopped ? plan_outcomes(plan) : Py_NewRef((PyObject *)g);
    Py_DECREF(g);
    return out;
}

/* dealt(board, players, first_player, chosen): the deal with first_player first, its cards and
 * tickets taking the chosen items in order: a CoreGame once every draw had its item, else
 * (pile, outcomes) of the first draw without one. ValueError for a chosen item not in its pile
 * or one too many. */
static PyObject *dealt(PyObject *mod, PyObject *args) {
    CoreBoard *board;
    int players, first;
    PyObject *chosen_list;
    if (!PyArg_ParseTuple(args, "O!iiO", &CoreBoardType, &board, &players, &first, &chosen_list)) return NULL;
    if (players < 2 || players > 3 || first < 0 || first >= players) {
        PyErr_SetString(PyExc_ValueError, "the core plays 2 or 3 players, first_player a seat");
        return NULL;
    }
    long chosen[MAX_CHOSEN];
    int n_chosen;
    if (chosen_items(chosen_list, chosen, &n_chosen)) return NULL;
    return drawn_deal(board, players, first, chosen, n_chosen);
}

/* ----------------------------------------------------------------------- OpenSpiel's node */

/* ChanceNode(players, ...): OpenSpiel's position on the core (rl/openspiel_core.py subclasses
 * it): the game (None until the deal is done; at a draw's chance node, the game before the
 * pending action), the first player, the pending action's id and the draws chosen for it or
 * for the deal, the chance node's (pile, outcomes) or None, the player to act (OpenSpiel's ids:
 * the chance and terminal ids of chance_setup), the legal ids ascending, and behind: the list
 * each applied action is appended to. chance_setup(board, space, chance_id, terminal_id) first. */
typedef struct {
    PyObject_HEAD CoreGame *game;
    PyObject *chance, *ids, *behind;
    int players, first, pending, player, n_chosen;
    long chosen[MAX_CHOSEN];
} ChanceNode;

static PyTypeObject ChanceNodeType;
static CoreBoard *node_board;
static CoreSpace *node_space;
static int node_chance_id = -1, node_terminal_id = -4;
static PyObject *key_first_pile;

static PyObject *chance_setup(PyObject *mod, PyObject *args) {
    PyObject *board, *space;
    if (!PyArg_ParseTuple(args, "O!O!ii", &CoreBoardType, &board, &CoreSpaceType, &space, &node_chance_id,
                          &node_terminal_id))
        return NULL;
    if (((CoreSpace *)space)->board != (CoreBoard *)board) {
        PyErr_SetString(PyExc_ValueError, "the CoreSpace is of another board");
        return NULL;
    }
    Py_XSETREF(node_board, (CoreBoard *)Py_NewRef(board));
    Py_XSETREF(node_space, (CoreSpace *)Py_NewRef(space));
    Py_RETURN_NONE;
}

static PyObject *ChanceNode_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    if (node_space == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "call chance_setup(board, space, chance_id, terminal_id) first");
        return NULL;
    }
    long players = PyTuple_GET_SIZE(args) ? PyLong_AsLong(PyTuple_GET_ITEM(args, 0)) : 0;
    if (players == -1 && PyErr_Occurred()) return NULL;
    if (players < 2 || players > 3) {
        PyErr_SetString(PyExc_ValueError, "the core plays 2 or 3 players");
        return NULL;
    }
    PyObject *outcomes = PyList_New(players);
    if (outcomes == NULL) return NULL;
    for (int p = 0; p < players; p++) PyList_SET_ITEM(outcomes, p, Py_BuildValue("(id)", p, 1.0 / (double)players));
    for (int p = 0; p < players; p++)
        if (PyList_GET_ITEM(outcomes, p) == NULL) {
            Py_DECREF(outcomes);
            return NULL;
        }
    ChanceNode *node = (ChanceNode *)type->tp_alloc(type, 0);
    if (node == NULL) {
        Py_DECREF(outcomes);
        return NULL;
    }
    node->game = NULL;
    node->chance = Py_BuildValue("(ON)", key_first_pile, outcomes);
    node->ids = PyList_New(0);
    node->behind = PyList_New(0);
    node->players = (int)players;
    node->first = node->pending = -1;
    node->player = node_chance_id;
    node->n_chosen = 0;
    if (node->chance == NULL || node->ids == NULL || node->behind == NULL) {
        Py_DECREF(node);
        return NULL;
    }
    return (PyObject *)node;
}

static void ChanceNode_dealloc(ChanceNode *self) {
    Py_XDECREF(self->game);
    Py_XDECREF(self->chance);
    Py_XDECREF(self->ids);
    Py_XDECREF(self->behind);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* apply(action): a chance outcome or the player's legal id. ValueError, and no change, for
 * anything else (the caller words the message). */
static PyObject *ChanceNode_apply(ChanceNode *self, PyObject *arg) {
    long action;
    if (long_arg(arg, &action)) return NULL;
    PyObject *result;
    CoreGame *game = self->game;
    if (self->chance == NULL || self->chance == Py_None) {
        if (game == NULL) {
            PyErr_SetString(PyExc_ValueError, "no game to act in");
            return NULL;
        }
        if ((result = drawn_step(game, node_space, action, NULL, 0)) == NULL) return NULL;
        self->pending = (int)action;
        self->n_chosen = 0;
    } else if (game == NULL && self->first < 0) {
        if (action < 0 || action >= self->players) {
            PyErr_SetString(PyExc_ValueError, "not a seat");
            return NULL;
        }
        if ((result = drawn_deal(node_board, self->players, (int)action, NULL, 0)) == NULL) return NULL;
        self->first = (int)action;
        self->n_chosen = 0;
    } else {
        if (self->n_chosen >= MAX_CHOSEN) {
            PyErr_Format(PyExc_ValueError, "at most %d chosen items", MAX_CHOSEN);
            return NULL;
        }
        self->chosen[self->n_chosen++] = action;
        result = game == NULL ? drawn_deal(node_board, self->players, self->first, self->chosen, self->n_chosen)
                              : drawn_step(game, node_space, self->pending, self->chosen, self->n_chosen);
        if (result == NULL) {
            self->n_chosen--;
            return NULL;
        }
    }
    if (PyList_Append(self->behind, arg) < 0) {
        /* not reached but for memory: the game may have changed; nothing consistent is left */
        Py_DECREF(result);
        return NULL;
    }
    if (PyTuple_Check(result)) {
        Py_XSETREF(self->chance, result);
        self->player = node_chance_id;
        Py_RETURN_NONE;
    }
    Py_XSETREF(self->chance, Py_NewRef(Py_None));
    self->n_chosen = 0;
    if (game == NULL) {
        self->game = game = (CoreGame *)result;
        if ((result = sorted_ids_list(game, node_space)) == NULL) return NULL;
    }
    Py_XSETREF(self->ids, result);
    self->player = PyList_GET_SIZE(result) ? game->s.current : node_terminal_id;
    Py_RETURN_NONE;
}

/* copy(): an independent copy (the game cloned), of the same type; a subclass's own fields
 * are the subclass's to copy. */
static PyObject *ChanceNode_copy(ChanceNode *self, PyObject *unused) {
    PyTypeObject *type = Py_TYPE(self);
    ChanceNode *other = (ChanceNode *)type->tp_alloc(type, 0);
    if (other == NULL) return NULL;
    other->game = NULL;
    if (self->game != NULL && (other->game = (CoreGame *)CoreGame_clone(self->game, NULL)) == NULL) {
        Py_DECREF(other);
        return NULL;
    }
    other->chance = Py_XNewRef(self->chance); /* never changed in place */
    other->ids = Py_XNewRef(self->ids);
    other->behind = PyList_GetSlice(self->behind, 0, PyList_GET_SIZE(self->behind));
    if (other->behind == NULL) {
        Py_DECREF(other);
        return NULL;
    }
    other->players = self->players;
    other->first = self->first;
    other->pending = self->pending;
    other->player = self->player;
    other->n_chosen = self->n_chosen;
    memcpy(other->chosen, self->chosen, sizeof(self->chosen));
    return (PyObject *)other;
}

/* restore(game, first, pending, chosen, chance, player): the fields of a position moved into
 * the core (its legal ids listed again). */
static PyObject *ChanceNode_restore(ChanceNode *self, PyObject *args) {
    PyObject *game, *chosen, *chance;
    int first, pending, player;
    if (!PyArg_ParseTuple(args, "OiiOOi", &game, &first, &pending, &chosen, &chance, &player)) return NULL;
    if (game != Py_None && !PyObject_TypeCheck(game, &CoreGameType)) {
        PyErr_SetString(PyExc_TypeError, "game must be a CoreGame or None");
        return NULL;
    }
    if (game != Py_None && ((CoreGame *)game)->board != node_board) {
        PyErr_SetString(PyExc_ValueError, "the game is on another board than chance_setup's");
        return NULL;
    }
    long items[MAX_CHOSEN];
    int n;
    if (chosen_items(chosen, items, &n)) return NULL;
    PyObject *ids = game == Py_None || player < 0 ? PyList_New(0) : sorted_ids_list((CoreGame *)game, node_space);
    if (ids == NULL) return NULL;
    Py_XSETREF(self->ids, ids);
    Py_XSETREF(self->game, game == Py_None ? NULL : (CoreGame *)Py_NewRef(game));
    Py_XSETREF(self->chance, Py_NewRef(chance));
    self->first = first;
    self->pending = pending;
    self->player = player;
    self->n_chosen = n;
    memcpy(self->chosen, items, (size_t)n * sizeof(long));
    Py_RETURN_NONE;
}

static PyObject *ChanceNode_get_game(ChanceNode *self, void *c) {
    return self->game == NULL ? Py_NewRef(Py_None) : Py_NewRef((PyObject *)self->game);
}

static PyObject *ChanceNode_get_chosen(ChanceNode *self, void *c) {
    PyObject *out = PyList_New(self->n_chosen);
    for (int i = 0; out != NULL && i < self->n_chosen; i++) {
        PyObject *v = PyLong_FromLong(self->chosen[i]);
        if (v == NULL) Py_CLEAR(out);
        else PyList_SET_ITEM(out, i, v);
    }
    return out;
}

static PyObject *ChanceNode_get_behind(ChanceNode *self, void *c) { return Py_NewRef(self->behind); }

static int ChanceNode_set_behind(ChanceNode *self, PyObject *value, void *c) {
    if (value == NULL || !PyList_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "behind must be a list");
        return -1;
    }
    Py_XSETREF(self->behind, Py_NewRef(value));
    return 0;
}

static PyObject *ChanceNode_get_player(ChanceNode *self, void *c) { return PyLong_FromLong(self->player); }
static PyObject *ChanceNode_get_players(ChanceNode *self, void *c) { return PyLong_FromLong(self->players); }
static PyObject *ChanceNode_get_first(ChanceNode *self, void *c) { return PyLong_FromLong(self->first); }
static PyObject *ChanceNode_get_pending(ChanceNode *self, void *c) { return PyLong_FromLong(self->pending); }
static PyObject *ChanceNode_get_chance(ChanceNode *self, void *c) { return Py_NewRef(self->chance); }
static PyObject *ChanceNode_get_ids(ChanceNode *self, void *c) { return Py_NewRef(self->ids); }

static PyGetSetDef ChanceNode_getset[] = {
    {"game", (getter)ChanceNode_get_game, NULL, "the CoreGame (None until the deal is done)", NULL},
    {"chosen", (getter)ChanceNode_get_chosen, NULL, "the draws chosen for the deal or the pending action", NULL},
    {"behind", (getter)ChanceNode_get_behind, (setter)ChanceNode_set_behind, "the list actions are appended to",
     NULL},
    {"player", (getter)ChanceNode_get_player, NULL, "the player to act (OpenSpiel's id)", NULL},
    {"players", (getter)ChanceNode_get_players, NULL, "the number of players", NULL},
    {"first", (getter)ChanceNode_get_first, NULL, "the first player, -1 until chosen", NULL},
    {"pending", (getter)ChanceNode_get_pending, NULL, "the pending action's id, -1 for none", NULL},
    {"chance", (getter)ChanceNode_get_chance, NULL, "(pile, outcomes) at a chance node, else None", NULL},
    {"ids", (getter)ChanceNode_get_ids, NULL, "the legal ids, ascending (share it: copy before changing)", NULL},
    {NULL},
};

static PyMethodDef ChanceNode_methods[] = {
    {"apply", (PyCFunction)ChanceNode_apply, METH_O, "apply a chance outcome or a legal id"},
    {"copy", (PyCFunction)ChanceNode_copy, METH_NOARGS, "an independent copy of the node's own fields"},
    {"restore", (PyCFunction)ChanceNode_restore, METH_VARARGS, "set the fields of a position moved into the core"},
    {NULL},
};

static PyTypeObject ChanceNodeType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ttr_nordic.fast._core.ChanceNode",
    .tp_basicsize = sizeof(ChanceNode),
    .tp_dealloc = (destructor)ChanceNode_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_new = ChanceNode_new,
    .tp_methods = ChanceNode_methods,
    .tp_getset = ChanceNode_getset,
    .tp_doc = "OpenSpiel's position on the core: ChanceNode(players, ...).",
};

/* ------------------------------------------------------------- observations as Python lists */

#define FLOAT_CACHE 1024
static PyObject *float_cache[FLOAT_CACHE]; /* float objects by their value's bits (float32 values) */
static uint32_t float_cache_bits[FLOAT_CACHE];

static PyObject *cached_float(float value) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof(bits));
    uint32_t at = (bits * 2654435761u) >> 22;
    PyObject *cached = float_cache[at];
    if (cached != NULL && float_cache_bits[at] == bits) return Py_NewRef(cached);
    PyObject *made = PyFloat_FromDouble((double)value);
    if (made == NULL) return NULL;
    Py_XSETREF(float_cache[at], Py_NewRef(made));
    float_cache_bits[at] = bits;
    return made;
}

#define MAX_OBSERVATION 4096

/* Each seat's last vector as floats and as a list of float objects: a call changes the cells
 * whose value changed and returns a copy of the list (as ObservationEncoder.values does). */
static PyObject *seat_cells[MAX_PLAYERS];
static float seat_values[MAX_PLAYERS][MAX_OBSERVATION];

/* observation_values(space, seat): encode_view(state.view(seat)) as a list of Python floats
 * (ObservationEncoder.values': the float32 values as Python floats). */
static PyObject *CoreGame_observation_values(CoreGame *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "observation_values(space, seat) takes 2 arguments");
        return NULL;
    }
    CoreSpace *sp = space_arg(self, args[0]);
    if (sp == NULL) return NULL;
    long seat = PyLong_AsLong(args[1]);
    if (seat == -1 && PyErr_Occurred()) return NULL;
    if (seat < 0 || seat >= self->s.players) {
        PyErr_Format(PyExc_ValueError, "seat %ld is not a player of this game", seat);
        return NULL;
    }
    int size = sp->layout.size;
    if (size > MAX_OBSERVATION) {
        PyErr_SetString(PyExc_ValueError, "the observation is too long for observation_values");
        return NULL;
    }
    float values[MAX_OBSERVATION];
    encode_obs_cached(&self->s, &self->board->b, &sp->layout, (int)seat, values, &sp->seat_routes[seat]);
    PyObject *cells = seat_cells[seat];
    float *last = seat_values[seat];
    if (cells == NULL || PyList_GET_SIZE(cells) != size) {
        PyObject *fresh = PyList_New(size);
        if (fresh == NULL) return NULL;
        for (int i = 0; i < size; i++) {
            PyObject *v = cached_float(values[i]);
            if (v == NULL) {
                Py_DECREF(fresh);
                return NULL;
            }
            PyList_SET_ITEM(fresh, i, v);
        }
        Py_XSETREF(seat_cells[seat], fresh);
        memcpy(last, values, (size_t)size * sizeof(float));
        cells = fresh;
    } else {
        for (int i = 0; i < size; i++) {
            if (last[i] == values[i]) continue; /* float32 values: no NaN, and -0 never written */
            PyObject *v = cached_float(values[i]);
            if (v == NULL) return NULL;
            PyObject *old = PyList_GET_ITEM(cells, i);
            PyList_SET_ITEM(cells, i, v);
            Py_DECREF(old);
            last[i] = values[i];
        }
    }
    return PyList_GetSlice(cells, 0, size);
}
