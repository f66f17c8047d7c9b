/* One game for the RL environments (rl/pettingzoo_env.py, rl/parallel.py, rl/gym_env.py): the
 * legal action ids, the observation vector and the action mask of a CoreGame, straight from its
 * state, with _batch.h's ids and encoder (so every environment's numbers are the batched one's).
 * Part of the compiled core: included by _core.c, after _batch.h. */
/* ------------------------------------------------------------------ the environments' game */

/* CoreSpace(board, space, claim_index, slotted, layout, arrays): rl/actions.py's ids and
 * rl/observation.py's layout for one board, made once (ttr_nordic.rl.core_game.core_space); the
 * first five arguments as CoreBatch's; arrays is (numpy.empty, float32 dtype, int8 dtype): the
 * dtypes of observation()'s arrays, which it makes with numpy's C API (numpy.empty in a build
 * without numpy's headers). */
#ifdef TTR_NUMPY_API /* numpy's headers at build time (hatch_build.py): its C API makes and checks the arrays */
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#define NUMPY_API 1
#else
#define NUMPY_API 0 /* the module's NUMPY_API: which way this build makes its arrays */
#endif

#define POOL 12 /* a learner may hold the last step's observations (one per agent) while asking for the next,
                 and parallel_step's pooled dicts the step's before (pooled_dict) */
#define STEP_POOL 12 /* parallel_step's dicts of one kind: a step's (up to one per seat) and its caller's last ones */
/* The kinds of parallel_step's dicts: by agent name, and each agent's info. */
enum { D_OBSERVATIONS, D_REWARDS, D_TERMINATIONS, D_TRUNCATIONS, D_INFOS, D_INFO, STEP_DICT_KINDS };

#define HELD_MAX (MAX_PLAYERS > 3 ? MAX_PLAYERS : 3) /* the most keys of a pooled dict: one per seat, or an info's 3 */

/* One of parallel_step()'s pooled dicts, with what the pool last wrote into it: its keys and
 * values (borrowed: the dict holds them while it is unchanged) and its version tag then. */
typedef struct {
    PyObject *dict;
    uint64_t tag;
    int n; /* how many keys it was written with; -1: unknown (read the dict) */
    PyObject *keys[HELD_MAX], *held[HELD_MAX];
} StepSlot;

typedef struct {
    PyObject_HEAD CoreBoard *board;
    IdSpace space;
    ObsLayout layout;
    PyObject *claim_index; /* owns space.claim_index's bytes */
    PyObject **ids;        /* every action id as a Python int, made once: the legal id lists share them */
    PyObject *empty, *float32, *int8, *obs_size, *mask_size;
    /* observation()'s last results, each made again in place once nothing else refers to it
     * (see recycled below): {"observation", "action_mask"} dicts with their arrays, and vectors. */
    PyObject *dicts[POOL], *vectors[POOL], *masks[POOL], *lone[POOL];
    uint64_t dict_tags[POOL]; /* each dict's version tag when observation() last wrote it (dict_tag) */
    int next_dict, next_lone;
    /* parallel_step()'s dicts of each kind, written again once nothing else refers to them (pooled_dict). */
    StepSlot step_slots[STEP_DICT_KINDS][STEP_POOL];
    int next_step_dict[STEP_DICT_KINDS];
    RouteBlock seat_routes[MAX_PLAYERS]; /* each seat's route block, kept while no route changes hands */
} CoreSpace;

static PyObject *key_observation, *key_action_mask, *key_active_agent, *key_illegal_action, *key_legal_ids, *key_seat;
static PyObject *zero_reward; /* 0.0, every reward but the last (a float is immutable: one object serves all) */

static PyTypeObject CoreSpaceType;

static void CoreSpace_dealloc(CoreSpace *self) {
    if (self->ids != NULL)
        for (int i = 0; i < self->space.size; i++) Py_XDECREF(self->ids[i]);
    free(self->ids);
    Py_XDECREF(self->claim_index);
    Py_XDECREF(self->board);
    Py_XDECREF(self->empty);
    Py_XDECREF(self->float32);
    Py_XDECREF(self->int8);
    Py_XDECREF(self->obs_size);
    Py_XDECREF(self->mask_size);
    for (int k = 0; k < STEP_DICT_KINDS; k++)
        for (int i = 0; i < STEP_POOL; i++) Py_XDECREF(self->step_slots[k][i].dict);
    for (int i = 0; i < POOL; i++) {
        Py_XDECREF(self->dicts[i]);
        Py_XDECREF(self->vectors[i]);
        Py_XDECREF(self->masks[i]);
        Py_XDECREF(self->lone[i]);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int CoreSpace_init(CoreSpace *self, PyObject *args, PyObject *kwds) {
    PyObject *board, *space, *claim_index, *slotted, *layout, *empty, *float32, *int8;
    if (self->board != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "CoreSpace is initialised once");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "O!OOOO(OOO)", &CoreBoardType, &board, &space, &claim_index, &slotted, &layout, &empty,
                          &float32, &int8))
        return -1;
    if (!PyCallable_Check(empty)) {
        PyErr_SetString(PyExc_TypeError, "arrays must be (numpy.empty, float32 dtype, int8 dtype)");
        return -1;
    }
#ifdef TTR_NUMPY_API
    /* numpy's C API, loaded here rather than when the module is imported: only the RL
     * environments, which need numpy anyway, make a CoreSpace (the core runs without numpy). */
    if (PyArray_API == NULL && _import_array() < 0) return -1;
    PyObject *f32 = (PyObject *)PyArray_DescrFromType(NPY_FLOAT32), *i8 = (PyObject *)PyArray_DescrFromType(NPY_INT8);
    int same = f32 == float32 && i8 == int8; /* the dtypes the arrays are checked against */
    Py_XDECREF(f32);
    Py_XDECREF(i8);
    if (!same) {
        PyErr_SetString(PyExc_TypeError, "arrays must be (numpy.empty, float32 dtype, int8 dtype)");
        return -1;
    }
#endif
    if (parse_space(&((CoreBoard *)board)->b, space, claim_index, slotted, layout, &self->space, &self->layout))
        return -1;
    if ((self->obs_size = PyLong_FromLong(self->layout.size)) == NULL ||
        (self->mask_size = PyLong_FromLong(self->space.size)) == NULL)
        return -1;
    PyObject **ids = (PyObject **)calloc((size_t)self->space.size, sizeof(PyObject *));
    if (ids == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (int i = 0; i < self->space.size; i++) {
        if ((ids[i] = PyLong_FromLong(i)) == NULL) {
            while (i > 0) Py_DECREF(ids[--i]);
            free(ids);
            return -1;
        }
    }
    self->ids = ids;
    self->board = (CoreBoard *)Py_NewRef(board);
    self->claim_index = Py_NewRef(claim_index);
    self->empty = Py_NewRef(empty);
    self->float32 = Py_NewRef(float32);
    self->int8 = Py_NewRef(int8);
    return 0;
}

static PyTypeObject CoreSpaceType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ttr_nordic.fast._core.CoreSpace",
    .tp_basicsize = sizeof(CoreSpace),
    .tp_dealloc = (destructor)CoreSpace_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)CoreSpace_init,
    .tp_doc = "The RL action ids and observation layout for the core: CoreSpace(board, space, claim_index, "
              "slotted, layout).",
};

/* The space argument of a game's method: a CoreSpace of the game's board. */
static CoreSpace *space_arg(CoreGame *g, PyObject *arg) {
    if (!PyObject_TypeCheck(arg, &CoreSpaceType) || ((CoreSpace *)arg)->board == NULL) {
        PyErr_SetString(PyExc_TypeError, "expected an initialised CoreSpace");
        return NULL;
    }
    if (((CoreSpace *)arg)->board != g->board) {
        PyErr_SetString(PyExc_ValueError, "the CoreSpace is of another board");
        return NULL;
    }
    return (CoreSpace *)arg;
}

/* The legal codes and their ids now, worked out once per decision (and per space). */
static int env_legal(CoreGame *g, CoreSpace *sp) {
    if (g->env_at == g->s.n_actions && g->env_space == sp) return 0;
    Buf *legal = &g->env_legal;
    legal->n = 0;
    if (g->s.phase != PH_GAME_OVER && legal_actions(&g->s, &g->board->b, legal)) goto no_memory;
    if (legal->n > g->env_cap) {
        int *ids = (int *)realloc(g->env_ids, (size_t)legal->cap * sizeof(int));
        if (ids == NULL) goto no_memory;
        g->env_ids = ids;
        g->env_cap = legal->cap;
    }
    legal_ids(&g->s, &sp->space, legal, g->env_ids);
    for (int i = 0; i < legal->n; i++) {
        if (g->env_ids[i] < 0) {
            PyErr_Format(PyExc_RuntimeError, "the legal action code %llu has no action id",
                         (unsigned long long)legal->v[i]);
            return -1;
        }
    }
    g->env_at = g->s.n_actions;
    g->env_space = sp; /* compared by address only: a game holds no reference to it */
    return 0;
no_memory:
    PyErr_NoMemory();
    return -1;
}

/* A new list of the action ids ids[0..n) (ids of sp's space), its ints sp's own. */
static PyObject *id_list(const CoreSpace *sp, const int *ids, int n) {
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (int i = 0; i < n; i++) PyList_SET_ITEM(out, i, Py_NewRef(sp->ids[ids[i]]));
    return out;
}

/* legal_ids(space): the legal action ids, in the engine's order (ActionSpace.legal_id_list's);
 * empty once the game is over. */
static PyObject *CoreGame_legal_ids(CoreGame *self, PyObject *arg) {
    CoreSpace *sp = space_arg(self, arg);
    if (sp == NULL || env_legal(self, sp)) return NULL;
    return id_list(sp, self->env_ids, self->env_legal.n);
}

/* apply_id(space, id): apply the legal action with this id; its code, or ValueError (and no
 * change) when no legal action has it. */
static PyObject *CoreGame_apply_id(CoreGame *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "apply_id(space, id) takes 2 arguments");
        return NULL;
    }
    CoreSpace *sp = space_arg(self, args[0]);
    if (sp == NULL) return NULL;
    long id = PyLong_AsLong(args[1]);
    if (id == -1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return NULL;
        PyErr_Clear(); /* beyond every id: not legal, as any other id no action has */
        PyErr_SetString(PyExc_ValueError, "that action id is not legal now");
        return NULL;
    }
    if (env_legal(self, sp)) return NULL;
    for (int i = 0; i < self->env_legal.n; i++) {
        if (self->env_ids[i] == id) {
            uint64_t code = self->env_legal.v[i];
            apply_action(&self->s, &self->board->b, code);
            return PyLong_FromUnsignedLongLong(code);
        }
    }
    PyErr_Format(PyExc_ValueError, "action id %ld is not legal now", id);
    return NULL;
}

static int writable(PyObject *obj, Py_buffer *view, const char *format, Py_ssize_t items, const char *what) {
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) return -1;
    if (strcmp(view->format, format) != 0 || view->len != items * view->itemsize) {
        PyErr_Format(PyExc_ValueError, "%s must be a C-contiguous '%s' array of %zd items", what, format, items);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* observe(space, seat, out): encode_view(state.view(seat)) written into out, a float32 array. */
static PyObject *CoreGame_observe(CoreGame *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "observe(space, seat, out) takes 3 arguments");
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
    Py_buffer out;
    if (writable(args[2], &out, "f", sp->layout.size, "out")) return NULL;
    encode_obs_cached(&self->s, &self->board->b, &sp->layout, (int)seat, (float *)out.buf, &sp->seat_routes[seat]);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

/* mask(space, out): out (an int8 array of every id) set to 1 for each legal id, else 0. */
static PyObject *CoreGame_mask(CoreGame *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "mask(space, out) takes 2 arguments");
        return NULL;
    }
    CoreSpace *sp = space_arg(self, args[0]);
    if (sp == NULL || env_legal(self, sp)) return NULL;
    Py_buffer out;
    if (writable(args[1], &out, "b", sp->space.size, "out")) return NULL;
    int8_t *mask = (int8_t *)out.buf;
    memset(mask, 0, (size_t)out.len);
    for (int i = 0; i < self->env_legal.n; i++) mask[self->env_ids[i]] = 1;
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

/* Seat p's reward in a finished game scored r (n players): win, +1 for a winner and -1 for the
 * others; else its total minus the best other total. */
static double seat_end_reward(const Result *r, int n, int p, int win) {
    if (win) {
        for (int w = 0; w < r->n_winners; w++)
            if (r->winners[w] == p) return 1.0;
        return -1.0;
    }
    int best_other = INT32_MIN;
    for (int q = 0; q < n; q++)
        if (q != p && r->total[q] > best_other) best_other = r->total[q];
    return (double)(r->total[p] - best_other);
}

/* end_rewards(win): each seat's reward for the finished game (rl/pettingzoo_env.py's end_rewards). */
static PyObject *CoreGame_end_rewards(CoreGame *self, PyObject *arg) {
    int win = PyObject_IsTrue(arg);
    if (win < 0) return NULL;
    if (self->s.phase != PH_GAME_OVER) {
        PyErr_SetString(PyExc_ValueError, "the game is not over");
        return NULL;
    }
    Result r;
    score(&self->s, &self->board->b, &r, 0);
    int n = self->s.players;
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (int p = 0; p < n; p++) {
        PyObject *item = PyFloat_FromDouble(seat_end_reward(&r, n, p, win));
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, p, item);
    }
    return out;
}

/* Whether d's keys are keys[0..n), in this order (the very objects); its values then in held. */
static int keys_are(PyObject *d, PyObject *const *keys, int n, PyObject **held) {
    if (PyDict_GET_SIZE(d) != n) return 0;
    Py_ssize_t pos = 0;
    PyObject *key;
    for (int i = 0; i < n; i++)
        if (!PyDict_Next(d, &pos, &key, &held[i]) || key != keys[i]) return 0;
    return 1;
}

/* A dict's version tag, where CPython gives every dict a new one at each change of it (3.11 to
 * 3.13: PEP 509's ma_version_tag, kept for the interpreter's own caches): a pooled dict whose tag
 * is the one the pool saw after writing it still holds what the pool wrote, which saves reading
 * it back. Elsewhere (or built with TTR_NO_DICT_TAGS, as a test builds it) DICT_TAGS is 0 and the
 * pool reads the dict (keys_are). */
#if PY_VERSION_HEX < 0x030E0000 && !defined(TTR_NO_DICT_TAGS)
#define DICT_TAGS 1
static inline uint64_t dict_tag(PyObject *d) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    return ((PyDictObject *)d)->ma_version_tag;
#pragma GCC diagnostic pop
}
#else
#define DICT_TAGS 0
static inline uint64_t dict_tag(PyObject *d) { return (void)d, 0; }
#endif

/* Whether obj is referred to by refs references only, and by no weak reference: then nothing
 * outside the pool can reach it, and writing it again is unseen (the observation stays fresh for
 * whoever gets it next). A type whose weak references this cannot see counts as shared. */
static int recyclable(PyObject *obj, Py_ssize_t refs) {
    if (Py_REFCNT(obj) != refs) return 0;
    Py_ssize_t offset = Py_TYPE(obj)->tp_weaklistoffset;
    if (offset == 0) return 1;
    return offset > 0 && *(PyObject **)((char *)obj + offset) == NULL;
}

#ifdef TTR_NUMPY_API
/* Whether array is still as pooled_array made it: a numpy array of one dimension of items, of
 * dtype, writable, C-contiguous, holding its own data (not so once its last holder made it
 * read-only, reshaped, resized or retyped it). */
static int as_made(PyObject *array, PyObject *dtype, Py_ssize_t items) {
    PyArrayObject *a = (PyArrayObject *)array;
    return PyArray_CheckExact(array) && PyArray_NDIM(a) == 1 && PyArray_DIM(a, 0) == items &&
           (PyObject *)PyArray_DESCR(a) == dtype && PyArray_BASE(a) == NULL &&
           PyArray_CHKFLAGS(a, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_WRITEABLE);
}

/* An array of items of dtype for the pool's slot: a recycled one (refs references, the pool's
 * among them, and still as made), else a new one made with numpy's C API, replacing the slot's;
 * *data is where to write its items (until Python code runs). size and format are the fallback's. */
static PyObject *pooled_array(CoreSpace *sp, PyObject **slot, Py_ssize_t refs, PyObject *size, PyObject *dtype,
                              const char *format, Py_ssize_t items, void **data) {
    (void)sp, (void)size, (void)format;
    if (*slot != NULL && recyclable(*slot, refs) && as_made(*slot, dtype, items)) {
        *data = PyArray_DATA((PyArrayObject *)*slot);
        return Py_NewRef(*slot);
    }
    npy_intp dims[1] = {items};
    Py_INCREF(dtype); /* stolen by PyArray_NewFromDescr */
    PyObject *array = PyArray_NewFromDescr(&PyArray_Type, (PyArray_Descr *)dtype, 1, dims, NULL, NULL, 0, NULL);
    if (array == NULL) return NULL;
    *data = PyArray_DATA((PyArrayObject *)array);
    Py_XSETREF(*slot, Py_NewRef(array));
    return array;
}
#else
/* The head of a numpy array: numpy's PyArrayObject_fields, part of its ABI since 1.7 (numpy 2
 * kept it). Read only to see that a recycled array is still as numpy.empty made it, without the
 * buffer protocol's cost; trusted only once a fresh array's head matched its buffer. */
typedef struct {
    PyObject_HEAD char *data;
    int nd;
    Py_ssize_t *dimensions, *strides;
    PyObject *base, *descr;
    int flags;
} ArrayHead;
#define ARRAY_C_CONTIGUOUS 0x0001
#define ARRAY_WRITEABLE 0x0400

static int array_head_trusted = 0; /* 1 once a fresh array's head matched its buffer, -1 if one did not */

/* Whether array's head says: one dimension of items, dtype, writable, C-contiguous, its own data. */
static int head_as_made(PyObject *array, PyObject *dtype, Py_ssize_t items) {
    const ArrayHead *head = (const ArrayHead *)array;
    return head->nd == 1 && head->dimensions[0] == items && head->descr == dtype && head->base == NULL &&
           (head->flags & (ARRAY_C_CONTIGUOUS | ARRAY_WRITEABLE)) == (ARRAY_C_CONTIGUOUS | ARRAY_WRITEABLE);
}

/* An array of size items of dtype for the pool's slot (a recycled one, else a fresh one made with
 * numpy.empty, replacing the slot's); *data is where to write its items (until Python code runs). */
static PyObject *pooled_array(CoreSpace *sp, PyObject **slot, Py_ssize_t refs, PyObject *size, PyObject *dtype,
                              const char *format, Py_ssize_t items, void **data) {
    Py_buffer view;
    if (*slot != NULL && recyclable(*slot, refs)) {
        if (array_head_trusted == 1) {
            if (head_as_made(*slot, dtype, items)) {
                *data = ((const ArrayHead *)*slot)->data;
                return Py_NewRef(*slot);
            }
        } else if (writable(*slot, &view, format, items, "a pooled array") == 0) {
            int flat = view.ndim == 1;
            *data = view.buf;
            PyBuffer_Release(&view); /* the pool's reference keeps the array and its data */
            if (flat) return Py_NewRef(*slot);
        } else {
            PyErr_Clear();
        }
        /* made read-only, resized or reshaped by its last holder: replaced below */
    }
    PyObject *call[2] = {size, dtype};
    PyObject *array = PyObject_Vectorcall(sp->empty, call, 2, NULL);
    if (array == NULL) return NULL;
    if (writable(array, &view, format, items, "numpy.empty's array") < 0) {
        Py_DECREF(array);
        return NULL;
    }
    if (array_head_trusted == 0)
        array_head_trusted = head_as_made(array, dtype, items) && ((ArrayHead *)array)->data == view.buf ? 1 : -1;
    *data = view.buf;
    PyBuffer_Release(&view);
    Py_XSETREF(*slot, Py_NewRef(array));
    return array;
}
#endif

/* observation(space, seat): {"observation": seat's vector, "action_mask": seat's legal ids} as
 * float32 and int8 arrays that no one else holds (the PettingZoo form); the mask is all zero
 * unless seat decides now. With only_vector true (a third argument), the vector alone.
 * The arrays and dicts of earlier calls are written again once nothing else refers to them
 * (making numpy arrays cost more than the rest of an environment's step). */
static PyObject *observation_of(CoreGame *self, CoreSpace *sp, int seat, int only_vector, PyObject *prefer);

static PyObject *CoreGame_observation(CoreGame *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 && nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "observation(space, seat[, only_vector]) takes 2 or 3 arguments");
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
    int only_vector = nargs == 3 ? PyObject_IsTrue(args[2]) : 0;
    if (only_vector < 0) return NULL;
    return observation_of(self, sp, (int)seat, only_vector, NULL);
}

/* Whether the pool's dict i is referred to by refs references only and still holds the slot's
 * two arrays (its keys and values read in order: "observation", then "action_mask", as
 * observation_of sets them), so that it can be written again unseen. */
static int obs_dict_intact(CoreSpace *sp, int i, Py_ssize_t refs) {
    PyObject *d = sp->dicts[i], *held[2];
    PyObject *const keys[2] = {key_observation, key_action_mask};
    if (d == NULL || !recyclable(d, refs)) return 0;
    if (DICT_TAGS && sp->dict_tags[i] == dict_tag(d)) return 1; /* unchanged since observation_of wrote it */
    return keys_are(d, keys, 2, held) && held[0] == sp->vectors[i] && held[1] == sp->masks[i];
}

/* observation()'s result for a seat of the game (checked by the caller). prefer (or NULL): a dict
 * of an earlier result to write again if the pool and one container (a pooled dict of the
 * caller's, about to be written again too) are all that refer to it. */
static PyObject *observation_of(CoreGame *self, CoreSpace *sp, int seat, int only_vector, PyObject *prefer) {
    int decides = self->s.phase != PH_GAME_OVER && self->s.current == seat;
    if (decides && !only_vector && env_legal(self, sp)) return NULL;
    void *obs_data, *mask_data;
    if (only_vector) {
        int at = -1;
        for (int i = 0; i < POOL && at < 0; i++)
            if (sp->lone[i] != NULL && recyclable(sp->lone[i], 1)) at = i;
        if (at < 0) at = sp->next_lone = (sp->next_lone + 1) % POOL;
        PyObject *obs = pooled_array(sp, &sp->lone[at], 1, sp->obs_size, sp->float32, "f", sp->layout.size, &obs_data);
        if (obs == NULL) return NULL;
        encode_obs_cached(&self->s, &self->board->b, &sp->layout, seat, (float *)obs_data, &sp->seat_routes[seat]);
        return obs;
    }
    /* A dict of the pool that only the pool (and the preferred dict's container) holds. */
    int at = -1;
    if (prefer != NULL)
        for (int i = 0; i < POOL; i++)
            if (sp->dicts[i] == prefer) {
                if (obs_dict_intact(sp, i, 2)) at = i;
                break;
            }
    for (int i = 0; i < POOL && at < 0; i++)
        if (obs_dict_intact(sp, i, 1)) at = i;
    int recycled = at >= 0; /* then the dict holds the slot's arrays: each is recycled where only the pool and it do */
    if (!recycled) {
        at = sp->next_dict = (sp->next_dict + 1) % POOL;
        PyObject *fresh = PyDict_New();
        if (fresh == NULL) return NULL;
        Py_XSETREF(sp->dicts[at], fresh);
    }
    sp->dict_tags[at] = 0; /* no tag: until it is written, the dict is read (a failure below leaves it half made) */
    PyObject *out = sp->dicts[at], *before[2] = {sp->vectors[at], sp->masks[at]};
    PyObject *obs = pooled_array(sp, &sp->vectors[at], recycled ? 2 : 1, sp->obs_size, sp->float32, "f",
                                 sp->layout.size, &obs_data);
    if (obs == NULL) return NULL;
    encode_obs_cached(&self->s, &self->board->b, &sp->layout, seat, (float *)obs_data, &sp->seat_routes[seat]);
    PyObject *mask = pooled_array(sp, &sp->masks[at], recycled ? 2 : 1, sp->mask_size, sp->int8, "b", sp->space.size,
                                  &mask_data);
    if (mask == NULL) {
        Py_DECREF(obs);
        return NULL;
    }
    int8_t *cells = (int8_t *)mask_data;
    memset(cells, 0, (size_t)sp->space.size);
    if (decides)
        for (int i = 0; i < self->env_legal.n; i++) cells[self->env_ids[i]] = 1;
    /* Set where the dict does not hold them already (a recycled dict's arrays recycled too). */
    int failed = (!recycled || obs != before[0]) && PyDict_SetItem(out, key_observation, obs) < 0;
    failed = failed || ((!recycled || mask != before[1]) && PyDict_SetItem(out, key_action_mask, mask) < 0);
    Py_DECREF(obs);
    Py_DECREF(mask);
    if (failed) return NULL;
    sp->dict_tags[at] = dict_tag(out);
    return Py_NewRef(out);
}

/* step_id(space, id, codes): apply_id(space, id), its code appended to the list codes; the legal
 * ids of the next decision, in the engine's order (empty once the game is over). One call for an
 * environment's step. */
static PyObject *CoreGame_step_id(CoreGame *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "step_id(space, id, codes) takes 3 arguments");
        return NULL;
    }
    if (!PyList_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "codes must be a list");
        return NULL;
    }
    PyObject *code = CoreGame_apply_id(self, args, 2);
    if (code == NULL) return NULL;
    int failed = PyList_Append(args[2], code);
    Py_DECREF(code);
    if (failed || env_legal(self, (CoreSpace *)args[0])) return NULL;
    return id_list((CoreSpace *)args[0], self->env_ids, self->env_legal.n);
}

/* observations(space, agents): {agents[seat]: observation(space, seat)} for every seat (agents a
 * tuple of one name per seat): the parallel environment's observations in one call. */
static PyObject *CoreGame_observations(CoreGame *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "observations(space, agents) takes 2 arguments");
        return NULL;
    }
    if (space_arg(self, args[0]) == NULL) return NULL;
    PyObject *agents = args[1];
    if (!PyTuple_Check(agents) || PyTuple_GET_SIZE(agents) != self->s.players) {
        PyErr_Format(PyExc_ValueError, "agents must be a tuple of %d names, one per seat", self->s.players);
        return NULL;
    }
    PyObject *out = PyDict_New();
    if (out == NULL) return NULL;
    for (int seat = 0; seat < self->s.players; seat++) {
        PyObject *call[2] = {args[0], PyLong_FromLong(seat)};
        if (call[1] == NULL) goto fail;
        PyObject *one = CoreGame_observation(self, call, 2);
        Py_DECREF(call[1]);
        if (one == NULL) goto fail;
        int failed = PyDict_SetItem(out, PyTuple_GET_ITEM(agents, seat), one);
        Py_DECREF(one);
        if (failed) goto fail;
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}
