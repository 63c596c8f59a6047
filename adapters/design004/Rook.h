// Seed 004's Rook ("Rook, Knight, etc... You get the idea"): as the Bishop.
#ifndef ROOK_H
#define ROOK_H

#include "Piece.h"

class Rook : public Piece
{
protected:
    MoveType CanMove(Point p);

public:
    Rook(Point p, Color c, Board *b);
    bool Attacks(Point p);
};

#endif
