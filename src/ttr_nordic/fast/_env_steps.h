/* The environments' steps, each one call into the core: the Gymnasium environment's (gym_step,
 * the opponents the core plays) and the AEC environment's (aec_step); the parallel
 * environment's is _parallel.h's. Part of the compiled core: included by _core.c, after _env.h
 * (the environments' game: ids, observations, masks). */
/* ------------------------------------------------------------------ the Gymnasium environment's opponents */

static Agent *route_focus_of(PyObject *obj); /* _core.c: a CoreAgent's agent, or NULL for anything else */
static PyObject *name_getrandbits;

/* Python's random.Random._randbelow_with_getrandbits(n) on the generator rng (what
 * randrange(n) draws for n > 0), through its own getrandbits: the same numbers, the same state
 * after. The index drawn, or -1 with an exception set. */
static long randbelow(PyObject *rng, long n) {
    int k = 0;
    for (long m = n; m > 0; m >>= 1) k++;
    PyObject *bits = PyLong_FromLong(k); /* a small int: cached by Python, never freed */
    if (bits == NULL) return -1;
    long r;
    do {
        PyObject *call[2] = {rng, bits};
        PyObject *drawn = PyObject_VectorcallMethod(name_getrandbits, call, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        if (drawn == NULL) {
            r = -1;
            break;
        }
        r = PyLong_AsLong(drawn);
        Py_DECREF(drawn);
        if (r == -1 && PyErr_Occurred()) break;
    } while (r >= n);
    Py_DECREF(bits);
    return r;
}

/* The decisions of the seats other than seat that the core plays, in turn, each code appended
 * to codes, until seat decides or the game ends (0) or a seat the caller plays decides (1); -1
 * on error. seats has one entry per seat: a CoreAgent (Route Focus: its choose()), a
 * random.Random (a RandomAgent's generator: legal_ids()[randrange(len)], as RandomAgent picks
 * from the engine's list in the same order), or None (the caller plays it). */
static int play_seats(CoreGame *g, CoreSpace *sp, PyObject *codes, int seat, PyObject *seats) {
    State *s = &g->s;
    while (s->phase != PH_GAME_OVER && s->current != seat) {
        PyObject *who = PyTuple_GET_ITEM(seats, s->current);
        Agent *agent = route_focus_of(who);
        uint64_t code;
        if (agent != NULL) {
            int index;
            if (policy_choose(s, &g->board->b, agent, &g->legal, &index)) {
                PyErr_NoMemory();
                return -1;
            }
            code = g->legal.v[index];
        } else if (who == Py_None) {
            return 1;
        } else {
            if (env_legal(g, sp)) return -1;
            long index = randbelow(who, g->env_legal.n);
            if (index < 0) return -1;
            code = g->env_legal.v[index];
        }
        apply_action(s, &g->board->b, code);
        PyObject *value = PyLong_FromUnsignedLongLong(code);
        if (value == NULL) return -1;
        int failed = PyList_Append(codes, value);
        Py_DECREF(value);
        if (failed) return -1;
    }
    return 0;
}

/* gym_step(space, action, codes, seat, seats, only_vector, win): rl/gym_env.py's step on the
 * core in one call: the learner's action id applied (apply_id's ValueError, and no change, when
 * it is not legal; None: no action, as after reset; RuntimeError once the game is over), its code
 * appended to codes, then the opponents' decisions that the core plays (play_seats above; seats a
 * tuple of one entry per seat). Returns the step's (observation(space, seat, only_vector),
 * reward, terminated, False, {"seat": seat}), the reward seat's end reward (win: its kind) once
 * the game is over, else 0.0; or None when a seat the caller plays is to decide. */
static PyObject *CoreGame_gym_step(CoreGame *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "gym_step(space, action, codes, seat, seats, only_vector, win) takes 7 "
                                         "arguments");
        return NULL;
    }
    CoreSpace *sp = space_arg(self, args[0]);
    if (sp == NULL) return NULL;
    if (!PyList_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "codes must be a list");
        return NULL;
    }
    long seat = PyLong_AsLong(args[3]);
    if (seat == -1 && PyErr_Occurred()) return NULL;
    PyObject *seats = args[4];
    if (seat < 0 || seat >= self->s.players || !PyTuple_Check(seats) || PyTuple_GET_SIZE(seats) != self->s.players) {
        PyErr_Format(PyExc_ValueError, "seat must be a player and seats a tuple of %d entries", self->s.players);
        return NULL;
    }
    int win = PyObject_IsTrue(args[6]);
    if (win < 0) return NULL;
    if (args[1] != Py_None) {
        if (self->s.phase == PH_GAME_OVER) {
            PyErr_SetString(PyExc_RuntimeError, "call reset() first: the episode is over");
            return NULL;
        }
        PyObject *code = CoreGame_apply_id(self, args, 2);
        if (code == NULL) return NULL;
        int failed = PyList_Append(args[2], code);
        Py_DECREF(code);
        if (failed) return NULL;
    }
    int stopped = play_seats(self, sp, args[2], (int)seat, seats);
    if (stopped < 0) return NULL;
    if (stopped) Py_RETURN_NONE;
    int only_vector = PyObject_IsTrue(args[5]);
    PyObject *obs = only_vector < 0 ? NULL : observation_of(self, sp, (int)seat, only_vector, NULL);
    if (obs == NULL) return NULL;
    int over = self->s.phase == PH_GAME_OVER;
    double reward = 0.0;
    if (over) {
        Result r;
        score(&self->s, &self->board->b, &r, 0);
        reward = seat_end_reward(&r, self->s.players, (int)seat, win);
    }
    PyObject *info = PyDict_New();
    if (info == NULL || PyDict_SetItem(info, key_seat, args[3]) < 0) {
        Py_XDECREF(info);
        Py_DECREF(obs);
        return NULL;
    }
    PyObject *out = PyTuple_New(5), *value = PyFloat_FromDouble(reward);
    if (out == NULL || value == NULL) {
        Py_XDECREF(out);
        Py_XDECREF(value);
        Py_DECREF(info);
        Py_DECREF(obs);
        return NULL;
    }
    PyTuple_SET_ITEM(out, 0, obs);
    PyTuple_SET_ITEM(out, 1, value);
    PyTuple_SET_ITEM(out, 2, Py_NewRef(over ? Py_True : Py_False));
    PyTuple_SET_ITEM(out, 3, Py_NewRef(Py_False));
    PyTuple_SET_ITEM(out, 4, info);
    return out;
}

/* ------------------------------------------------------------------ the AEC environment's step */

/* aec_step(space, action, codes, infos, agents): rl/pettingzoo_env.py's step on the core in one
 * call: int(action) applied as step_id applies an id (ValueError, and no change, when it is not
 * legal; its code appended to the list codes), then in infos (a dict by agent name; agents a
 * tuple of one name per seat) a new {"legal_ids": []} for the agent that acted and a new
 * {"legal_ids": the next decision's ids} for the agent to decide next. Returns that agent's
 * name, or None once the game is over. */
static PyObject *CoreGame_aec_step(CoreGame *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "aec_step(space, action, codes, infos, agents) takes 5 arguments");
        return NULL;
    }
    CoreSpace *sp = space_arg(self, args[0]);
    if (sp == NULL) return NULL;
    PyObject *codes = args[2], *infos = args[3], *agents = args[4];
    if (!PyList_Check(codes) || !PyDict_Check(infos) || !PyTuple_Check(agents) ||
        PyTuple_GET_SIZE(agents) != self->s.players) {
        PyErr_Format(PyExc_TypeError, "codes must be a list, infos a dict and agents a tuple of %d names",
                     self->s.players);
        return NULL;
    }
    if (self->s.phase == PH_GAME_OVER) {
        PyErr_SetString(PyExc_ValueError, "the game is over");
        return NULL;
    }
    PyObject *id = PyNumber_Long(args[1]); /* int(action) */
    if (id == NULL) return NULL;
    PyObject *acting = PyTuple_GET_ITEM(agents, self->s.current), *call[2] = {args[0], id};
    PyObject *code = CoreGame_apply_id(self, call, 2);
    Py_DECREF(id);
    if (code == NULL) return NULL;
    int failed = PyList_Append(codes, code);
    Py_DECREF(code);
    if (failed || env_legal(self, sp)) return NULL;
    PyObject *none = PyList_New(0), *info = none == NULL ? NULL : PyDict_New();
    failed = info == NULL || PyDict_SetItem(info, key_legal_ids, none) < 0 || PyDict_SetItem(infos, acting, info) < 0;
    Py_XDECREF(none);
    Py_XDECREF(info);
    if (failed) return NULL;
    if (self->s.phase == PH_GAME_OVER) Py_RETURN_NONE;
    PyObject *next = PyTuple_GET_ITEM(agents, self->s.current), *ids = id_list(sp, self->env_ids, self->env_legal.n);
    info = ids == NULL ? NULL : PyDict_New();
    failed = info == NULL || PyDict_SetItem(info, key_legal_ids, ids) < 0 || PyDict_SetItem(infos, next, info) < 0;
    Py_XDECREF(ids);
    Py_XDECREF(info);
    return failed ? NULL : Py_NewRef(next);
}
