/* The parallel environment's step on the core (rl/parallel.py): its dicts pooled, and
 * ParallelStep, the step as one callable that also keeps the environment's own attributes.
 * Part of the compiled core: included by _core.c, after _env_steps.h. */
/* ------------------------------------------------------------------ the parallel environment's step */

/* Whether a pooled dict is referred to by refs references only and still has keys[0..n), in this
 * order (the very objects): unchanged since the pool wrote it (its version tag), else read back;
 * slot->held is then its values. */
static inline int slot_intact(StepSlot *slot, PyObject *const *keys, int n, Py_ssize_t refs) {
    PyObject *d = slot->dict;
    if (d == NULL || Py_REFCNT(d) != refs) return 0;
    if (DICT_TAGS && slot->n >= 0 && slot->tag == dict_tag(d)) { /* as written: its keys are slot->keys */
        if (slot->n != n) return 0;
        for (int i = 0; i < n; i++)
            if (slot->keys[i] != keys[i]) return 0; /* the dict holds its keys: the same objects */
        return 1;
    }
    slot->n = -1;
    return keys_are(d, keys, n, slot->held);
}

/* The index of a dict of the given kind that nobody but the pool holds and that has these keys,
 * or -1. */
static inline int free_slot(CoreSpace *sp, int kind, PyObject *const *keys, int n) {
    StepSlot *slots = sp->step_slots[kind];
    for (int i = 0; i < STEP_POOL; i++)
        if (slot_intact(&slots[i], keys, n, 1)) return i;
    return -1;
}

/* The dict of the given kind at index at (-1: a new one, put in the pool) with keys[0..n) set to
 * values[0..n) (each value's reference taken; NULL, and all released, on failure): written
 * again only where a value differs from what it holds, as observation() does its dicts (a caller
 * cannot tell it from a new one). */
static PyObject *fill_slot(CoreSpace *sp, int kind, int at, PyObject *const *keys, PyObject **values, int n) {
    StepSlot *slot = NULL;
    PyObject *out = NULL;
    if (at >= 0) {
        slot = &sp->step_slots[kind][at];
        out = slot->dict;
        int same = 0;
        while (slot->n == n && same < n && values[same] == slot->held[same]) same++;
        if (same == n) { /* as written last, and no value differs: nothing to write */
            for (int i = 0; i < n; i++) Py_DECREF(values[i]);
            return Py_NewRef(out);
        }
    } else {
        out = PyDict_New();
        if (out != NULL) {
            int *next = &sp->next_step_dict[kind];
            *next = (*next + 1) % STEP_POOL;
            slot = &sp->step_slots[kind][*next];
            Py_XSETREF(slot->dict, out);
            for (int i = 0; i < n; i++) slot->held[i] = NULL;
        }
    }
    if (out != NULL) {
        Py_INCREF(out);
        slot->n = -1; /* read back until written in full */
    }
    for (int i = 0; i < n; i++) {
        if (out != NULL && values[i] != slot->held[i] &&
            (values[i] == NULL || PyDict_SetItem(out, keys[i], values[i]) < 0))
            Py_CLEAR(out);
        Py_XDECREF(values[i]);
    }
    if (out != NULL) {
        for (int i = 0; i < n; i++) slot->keys[i] = keys[i], slot->held[i] = values[i];
        slot->tag = dict_tag(out), slot->n = n;
    }
    return out;
}

/* A dict of the given kind with keys[0..n) set to values[0..n) (fill_slot): one of the pool's
 * that nobody else holds and that still has these keys, else a new one. */
static PyObject *pooled_dict(CoreSpace *sp, int kind, PyObject *const *keys, PyObject **values, int n) {
    return fill_slot(sp, kind, free_slot(sp, kind, keys, n), keys, values, n);
}

/* An agent's info dict {"active_agent", "illegal_action", "legal_ids"} (pooled: D_INFO), preferring
 * prefer (or NULL), a dict of the pool that only it and a container about to be written again
 * hold. Its legal id list (ids[0..n)) is the one it holds, written again, where nothing else
 * refers to that list and it has room for n items. */
static PyObject *info_dict(CoreSpace *sp, PyObject *prefer, PyObject *active, PyObject *illegal, const int *ids,
                           int n) {
    PyObject *const keys[3] = {key_active_agent, key_illegal_action, key_legal_ids};
    StepSlot *slots = sp->step_slots[D_INFO];
    int at = -1;
    if (prefer != NULL)
        for (int i = 0; i < STEP_POOL; i++)
            if (slots[i].dict == prefer) {
                if (slot_intact(&slots[i], keys, 3, 2)) at = i;
                break;
            }
    if (at < 0) at = free_slot(sp, D_INFO, keys, 3);
    PyObject *list = at < 0 ? NULL : slots[at].held[2];
    if (list != NULL && PyList_CheckExact(list) && Py_REFCNT(list) == 1 && n <= ((PyListObject *)list)->allocated) {
        /* Written in place: its room kept, the ids it had beyond n let go once it is n long. */
        PyListObject *l = (PyListObject *)Py_NewRef(list);
        Py_ssize_t had = Py_SIZE(l);
        for (int i = 0; i < n; i++) {
            PyObject *old = i < had ? l->ob_item[i] : NULL;
            l->ob_item[i] = Py_NewRef(sp->ids[ids[i]]);
            Py_XDECREF(old);
        }
        Py_SET_SIZE(l, n);
        for (Py_ssize_t i = n; i < had; i++) Py_DECREF(l->ob_item[i]);
    } else {
        list = id_list(sp, ids, n);
    }
    PyObject *fields[3] = {Py_NewRef(active), Py_NewRef(illegal), list};
    return fill_slot(sp, D_INFO, at, keys, fields, 3);
}

/* rl/parallel.py's step on the core in one call: actions maps agent names to actions: the agent
 * to decide's (an id, anything int() takes, or None) is applied, the others' ignored; KeyError
 * when it has none (not `in` actions). Its code is appended to the list codes. Returns
 * (observations, rewards, terminations, truncations, infos), each a dict by agent name (agents:
 * a tuple of one name per seat, checked by the caller). truncate: whether this step truncates
 * unless the game ends; win: the end reward kind (apply_id's ValueError for an illegal action or
 * None, unless skip: then nothing changes and the agent's info says illegal_action). The dicts
 * are the pool's (pooled_dict) where their last holder let them go. */
static PyObject *parallel_step_of(CoreGame *self, CoreSpace *sp, PyObject *actions, PyObject *codes, PyObject *agents,
                                  int truncate, int win, int skip) {
    if (self->s.phase == PH_GAME_OVER) {
        PyErr_SetString(PyExc_ValueError, "the game is over");
        return NULL;
    }
    int n = self->s.players;
    int mover = self->s.current, illegal = 0;
    PyObject *name = PyTuple_GET_ITEM(agents, mover), *action;
    if (PyDict_CheckExact(actions)) {
        action = Py_XNewRef(PyDict_GetItemWithError(actions, name));
    } else { /* `name in actions`, then actions[name], as the engine path asks */
        int has = PySequence_Contains(actions, name);
        action = has > 0 ? PyObject_GetItem(actions, name) : NULL;
    }
    if (action == NULL) {
        if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, name);
        return NULL;
    }
    PyObject *code = NULL;
    if (action == Py_None) {
        PyErr_SetString(PyExc_ValueError, "no action is not legal now");
    } else {
        PyObject *id = PyNumber_Long(action); /* int(action): what it is not makes int()'s error */
        if (id == NULL) {
            Py_DECREF(action);
            return NULL;
        }
        PyObject *call[2] = {(PyObject *)sp, id};
        code = CoreGame_apply_id(self, call, 2);
        Py_DECREF(id);
    }
    Py_DECREF(action);
    if (code == NULL) {
        if (!skip || !PyErr_ExceptionMatches(PyExc_ValueError)) return NULL;
        PyErr_Clear();
        illegal = 1;
    } else {
        int failed = PyList_Append(codes, code);
        Py_DECREF(code);
        if (failed) return NULL;
    }
    if (env_legal(self, sp)) return NULL;
    int over = self->s.phase == PH_GAME_OVER;
    PyObject *const *names = &PyTuple_GET_ITEM(agents, 0);
    PyObject *values[MAX_PLAYERS], *parts[5] = {NULL, NULL, NULL, NULL, NULL};
    /* The observations and the infos: each dict by agent name that the caller let go is written
     * again, and with it the agents' dicts it holds where nothing else refers to them. */
    int at = free_slot(sp, D_OBSERVATIONS, names, n);
    for (int p = 0; p < n; p++)
        values[p] = observation_of(self, sp, p, 0, at < 0 ? NULL : sp->step_slots[D_OBSERVATIONS][at].held[p]);
    if ((parts[0] = fill_slot(sp, D_OBSERVATIONS, at, names, values, n)) == NULL) return NULL;
    if (over) {
        Result r;
        score(&self->s, &self->board->b, &r, 0);
        for (int p = 0; p < n; p++) values[p] = PyFloat_FromDouble(seat_end_reward(&r, n, p, win));
    } else {
        for (int p = 0; p < n; p++) values[p] = Py_NewRef(zero_reward);
    }
    if ((parts[1] = pooled_dict(sp, D_REWARDS, names, values, n)) == NULL) goto fail;
    for (int p = 0; p < n; p++) values[p] = Py_NewRef(over ? Py_True : Py_False);
    if ((parts[2] = pooled_dict(sp, D_TERMINATIONS, names, values, n)) == NULL) goto fail;
    for (int p = 0; p < n; p++) values[p] = Py_NewRef(!over && truncate ? Py_True : Py_False);
    if ((parts[3] = pooled_dict(sp, D_TRUNCATIONS, names, values, n)) == NULL) goto fail;
    PyObject *active = over ? Py_None : PyTuple_GET_ITEM(agents, self->s.current);
    at = free_slot(sp, D_INFOS, names, n);
    for (int p = 0; p < n; p++) {
        int decides = !over && p == self->s.current;
        values[p] = info_dict(sp, at < 0 ? NULL : sp->step_slots[D_INFOS][at].held[p], active,
                              illegal && p == mover ? Py_True : Py_False, self->env_ids,
                              decides ? self->env_legal.n : 0);
    }
    if ((parts[4] = fill_slot(sp, D_INFOS, at, names, values, n)) == NULL) goto fail;
    PyObject *out = PyTuple_New(5);
    if (out == NULL) goto fail;
    for (int i = 0; i < 5; i++) PyTuple_SET_ITEM(out, i, parts[i]); /* stolen */
    return out;
fail:
    for (int i = 0; i < 5; i++) Py_XDECREF(parts[i]);
    return NULL;
}


/* parallel_step(space, actions, codes, agents, truncate, win, skip): parallel_step_of. */
static PyObject *CoreGame_parallel_step(CoreGame *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "parallel_step(space, actions, codes, agents, truncate, win, skip) takes 7 "
                                         "arguments");
        return NULL;
    }
    CoreSpace *sp = space_arg(self, args[0]);
    if (sp == NULL) return NULL;
    PyObject *agents = args[3];
    if (!PyTuple_Check(agents) || PyTuple_GET_SIZE(agents) != self->s.players) {
        PyErr_Format(PyExc_ValueError, "agents must be a tuple of %d names, one per seat", self->s.players);
        return NULL;
    }
    if (!PyList_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "codes must be a list");
        return NULL;
    }
    int truncate = PyObject_IsTrue(args[4]), win = PyObject_IsTrue(args[5]), skip = PyObject_IsTrue(args[6]);
    if (truncate < 0 || win < 0 || skip < 0) return NULL;
    return parallel_step_of(self, sp, args[1], args[2], agents, truncate, win, skip);
}

/* ------------------------------------------------------------------ ParallelStep */

/* ParallelStep(space, agents, env, refuse): rl/parallel.py's step as one callable, set as the
 * environment's own attribute `step` (so that a step runs no Python frame). Called with the
 * actions dict, it steps the game given by bind() (parallel_step_of), counts the step (its
 * `steps`, which the environment's own reads) and sets the environment's attributes `agents` (a
 * new empty list once the game ends or is truncated) and `agent_to_move` (None then). It sets
 * them as attributes, never through env.__dict__: a dict made from an instance's attributes
 * makes every attribute read slower. An action it cannot take (KeyError or ValueError from
 * parallel_step_of) is passed to refuse(actions, missing), the environment's own one-line
 * error, with missing True when the agent to decide had none. */
typedef struct {
    PyObject_HEAD PyObject *space, *agents, *env, *refuse;
    CoreGame *game; /* NULL until bind() */
    PyObject *codes;
    long steps, max_cycles; /* max_cycles 0: no limit */
    int win, skip, live;
    vectorcallfunc vectorcall; /* ParallelStep_vectorcall: a call makes no argument tuple */
} ParallelStep;

static PyObject *key_agents, *key_agent_to_move;
static PyObject *ParallelStep_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames);

static int ParallelStep_traverse(ParallelStep *self, visitproc visit, void *arg) {
    Py_VISIT(self->space);
    Py_VISIT(self->agents);
    Py_VISIT(self->env);
    Py_VISIT(self->refuse);
    Py_VISIT(self->game);
    Py_VISIT(self->codes);
    return 0;
}

static int ParallelStep_clear(ParallelStep *self) {
    Py_CLEAR(self->space);
    Py_CLEAR(self->agents);
    Py_CLEAR(self->env);
    Py_CLEAR(self->refuse);
    Py_CLEAR(self->game);
    Py_CLEAR(self->codes);
    self->live = 0;
    return 0;
}

static void ParallelStep_dealloc(ParallelStep *self) {
    PyObject_GC_UnTrack(self);
    ParallelStep_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int ParallelStep_init(ParallelStep *self, PyObject *args, PyObject *kwds) {
    PyObject *space, *agents, *env, *refuse;
    if (!PyArg_ParseTuple(args, "O!O!OO:ParallelStep", &CoreSpaceType, &space, &PyTuple_Type, &agents, &env,
                          &refuse))
        return -1;
    if (!PyCallable_Check(refuse)) {
        PyErr_SetString(PyExc_TypeError, "refuse must be callable");
        return -1;
    }
    ParallelStep_clear(self);
    self->space = Py_NewRef(space);
    self->agents = Py_NewRef(agents);
    self->env = Py_NewRef(env);
    self->refuse = Py_NewRef(refuse);
    self->vectorcall = ParallelStep_vectorcall;
    return 0;
}

/* bind(game, codes, max_cycles, win, skip): step this game from now on, its codes appended to
 * codes, truncated after max_cycles steps (0: never); the step count starts again at 0. */
static PyObject *ParallelStep_bind(ParallelStep *self, PyObject *args) {
    PyObject *game, *codes;
    long max_cycles;
    int win, skip;
    if (!PyArg_ParseTuple(args, "O!O!lpp:bind", &CoreGameType, &game, &PyList_Type, &codes, &max_cycles, &win, &skip))
        return NULL;
    if (self->space == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "ParallelStep is not initialised");
        return NULL;
    }
    CoreGame *g = (CoreGame *)game;
    if (space_arg(g, self->space) == NULL) return NULL;
    if (PyTuple_GET_SIZE(self->agents) != g->s.players) {
        PyErr_Format(PyExc_ValueError, "agents must be a tuple of %d names, one per seat", g->s.players);
        return NULL;
    }
    if (max_cycles < 0) {
        PyErr_SetString(PyExc_ValueError, "max_cycles must be 0 (no limit) or positive");
        return NULL;
    }
    Py_XSETREF(self->game, (CoreGame *)Py_NewRef(game));
    Py_XSETREF(self->codes, Py_NewRef(codes));
    self->steps = 0;
    self->max_cycles = max_cycles;
    self->win = win;
    self->skip = skip;
    self->live = g->s.phase != PH_GAME_OVER;
    Py_RETURN_NONE;
}

static PyObject *ParallelStep_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    ParallelStep *self = (ParallelStep *)callable;
    Py_ssize_t given = PyVectorcall_NARGS(nargsf), named = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    /* step(actions) or step(actions=...), as the Python method it stands for */
    if (given + named != 1 ||
        (named == 1 && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "actions") != 0)) {
        PyErr_SetString(PyExc_TypeError, "step(actions) takes one argument, the actions dict");
        return NULL;
    }
    PyObject *actions = args[0];
    if (self->game == NULL || !self->live) {
        PyErr_SetString(PyExc_RuntimeError, "call reset() first: the game is over or not started");
        return NULL;
    }
    int truncate = self->max_cycles > 0 && self->steps + 1 >= self->max_cycles;
    PyObject *out = parallel_step_of(self->game, (CoreSpace *)self->space, actions, self->codes, self->agents, truncate,
                                     self->win, self->skip);
    if (out == NULL) {
        int missing = PyErr_ExceptionMatches(PyExc_KeyError);
        if (!missing && !PyErr_ExceptionMatches(PyExc_ValueError)) return NULL;
        PyErr_Clear();
        PyObject *call[2] = {actions, missing ? Py_True : Py_False};
        Py_XDECREF(PyObject_Vectorcall(self->refuse, call, 2, NULL)); /* raises */
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "that action is not legal now");
        return NULL;
    }
    self->steps++;
    State *s = &self->game->s;
    PyObject *mover = Py_None, *none_left = NULL;
    int ended = truncate || s->phase == PH_GAME_OVER;
    if (ended) {
        self->live = 0;
        none_left = PyList_New(0);
    } else {
        mover = PyTuple_GET_ITEM(self->agents, s->current);
    }
    int failed = PyObject_SetAttr(self->env, key_agent_to_move, mover) < 0 ||
                 (ended && (none_left == NULL || PyObject_SetAttr(self->env, key_agents, none_left) < 0));
    Py_XDECREF(none_left);
    if (failed) Py_CLEAR(out);
    return out;
}

static PyObject *ParallelStep_get_steps(ParallelStep *self, void *closure) {
    (void)closure;
    return PyLong_FromLong(self->steps);
}

static PyGetSetDef ParallelStep_getset[] = {
    {"steps", (getter)ParallelStep_get_steps, NULL, "steps since the last bind(), the game's reset", NULL},
    {NULL},
};

static PyMethodDef ParallelStep_methods[] = {
    {"bind", (PyCFunction)ParallelStep_bind, METH_VARARGS,
     "bind(game, codes, max_cycles, win, skip): the game to step from now on, its step count back to 0"},
    {NULL},
};

static PyTypeObject ParallelStepType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ttr_nordic.fast._core.ParallelStep",
    .tp_basicsize = sizeof(ParallelStep),
    .tp_dealloc = (destructor)ParallelStep_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(ParallelStep, vectorcall),
    .tp_traverse = (traverseproc)ParallelStep_traverse,
    .tp_clear = (inquiry)ParallelStep_clear,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)ParallelStep_init,
    .tp_call = PyVectorcall_Call,
    .tp_methods = ParallelStep_methods,
    .tp_getset = ParallelStep_getset,
    .tp_doc = "The parallel environment's step as one callable: ParallelStep(space, agents, env, refuse).",
};
