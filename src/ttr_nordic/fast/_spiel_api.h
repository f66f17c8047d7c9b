/* The compiled core's OpenSpiel node as a C API (_spiel.h): the struct of functions in the
 * capsule ttr_nordic.fast._core._spiel_api, for the C++ game of rl/spiel_native/. Plain C,
 * usable from C++. */
#ifndef TTR_SPIEL_API_H
#define TTR_SPIEL_API_H

#ifdef __cplusplus
extern "C" {
#endif

#define SPIEL_API_VERSION 1
#define SPIEL_API_CAPSULE "ttr_nordic.fast._core._spiel_api"
/* OpenSpiel's player ids for a chance node and the end (pyspiel.PlayerId). */
#define SPIEL_CHANCE (-1)
#define SPIEL_TERMINAL (-4)
/* What a chance node draws: the first player, a train card (outcomes: kinds 0-8), a ticket. */
#define SPIEL_PILE_FIRST 0
#define SPIEL_PILE_CARD 1
#define SPIEL_PILE_TICKET 2
/* Why spiel_apply refused. */
#define SPIEL_ILLEGAL 1
#define SPIEL_NO_MEMORY 2

typedef struct SpielNode SpielNode;

typedef struct {
    int version; /* SPIEL_API_VERSION */
    /* The board and space (a CoreBoard and its CoreSpace); the interpreter lock held. -1 with a
     * Python exception on error. */
    int (*setup)(PyObject *board, PyObject *space);
    SpielNode *(*create)(int players); /* the first player's chance node; NULL: out of memory */
    SpielNode *(*clone)(const SpielNode *node);
    void (*destroy)(SpielNode *node);
    int (*apply)(SpielNode *node, long action, int *error); /* 0, or -1 and *error (no change) */
    int (*player)(const SpielNode *node);                  /* a seat, SPIEL_CHANCE or SPIEL_TERMINAL */
    int (*players)(const SpielNode *node);
    int (*chance)(const SpielNode *node, const long **outcomes, const double **probs); /* how many */
    int (*chance_kind)(const SpielNode *node);                                         /* SPIEL_PILE_*, or -1 */
    int (*legal)(const SpielNode *node, const int **ids); /* the player's legal ids, ascending */
    void (*observe)(const SpielNode *node, int seat, float *out);
    void (*returns)(const SpielNode *node, int win, double *out);
    int (*string)(const SpielNode *node, char *out, size_t size);
} SpielApi;

#ifdef __cplusplus
}
#endif

#endif
