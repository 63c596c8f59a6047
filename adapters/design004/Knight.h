// Seed 004's Knight ("Rook, Knight, etc... You get the idea"): as the Bishop.
#ifndef KNIGHT_H
#define KNIGHT_H

#include "Piece.h"

class Knight : public Piece
{
protected:
    MoveType CanMove(Point p);

public:
    Knight(Point p, Color c, Board *b);
    bool Attacks(Point p);
};

#endif
