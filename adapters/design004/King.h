// Seed 004's King ("Rook, Knight, etc..."): as the Bishop, plus castling.
#ifndef KING_H
#define KING_H

#include "Piece.h"

class King : public Piece
{
protected:
    MoveType CanMove(Point p);

public:
    King(Point p, Color c, Board *b);
    bool Attacks(Point p);
    void TryToMove(Point p); // castling moves the rook too
};

#endif
