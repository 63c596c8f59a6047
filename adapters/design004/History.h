// Seed 004's History: one move, in a list of them, that can be undone and redone.
#ifndef HISTORY_H
#define HISTORY_H

#include "Point.h"

class Board;
class Piece;

class History
{
private:
    Board *board;
    Point from;          // the point a piece was moved from
    Point to;            // the point a piece was moved to
    Piece *killed_piece; // remembers what piece was killed on this move (the design keeps a
                         // Piece by value, which cannot hold a Pawn: a pointer)
    History *next;
    History *prev;
    // Added: what undoing a castle, an en-passant kill or a promotion needs, which the
    // design's from, to and killed piece do not say.
    Point killed_at;     // where the killed piece stood (en passant: not `to`)
    Piece *mover;        // the piece that moved (a promoted pawn is no longer at `to`)
    Piece *promoted_to;  // the piece a pawn became, or NULL
    bool had_moved;      // the mover had moved before (it may castle again after an undo)
    Point rook_from;     // a castle's rook, or (-1, -1)
    Point rook_to;
    Point en_passant;    // the board's en-passant square before the move

public:
    History(Point f, Point t, Board *b, History *p);
    void SetNext(History *n); // the design writes no return type
    void SetPrev(History *p);
    History *GetNext();
    History *GetPrev();
    Point GetFrom();
    Point GetTo();
    // Added: what the move did besides moving its piece.
    void Record(); // from the board, before the move is made (a redo records again)
    void SetKilled(Piece *p, Point at);
    void SetRookMove(Point f, Point t);
    void SetPromotion(Piece *p);
    void DeleteTaken(); // the pieces a move made took off the board (the board is deleted)
    void UndoLastMove();
    void RedoUndoneMove();
};

#endif
