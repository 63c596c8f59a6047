// Seed 004's Queen ("Rook, Knight, etc... You get the idea"): as the Bishop.
#ifndef QUEEN_H
#define QUEEN_H

#include "Piece.h"

class Queen : public Piece
{
protected:
    MoveType CanMove(Point p);

public:
    Queen(Point p, Color c, Board *b);
    bool Attacks(Point p);
};

#endif
