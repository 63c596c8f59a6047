// Seed 004's Pawn: the only piece with a direction.
#ifndef PAWN_H
#define PAWN_H

#include "Piece.h"

class Pawn : public Piece // the design's `class Pawn : Piece` inherits privately
{
private:
    int direction; // 1 for up, -1 for down

protected:
    MoveType CanMove(Point p); // the design says `bool`; it returns a MoveType

public:
    // The design declares a direction parameter and its method computes it from the colour;
    // the method's signature is kept.
    Pawn(Point p, Color c, Board *b);
    bool Attacks(Point p);
    void TryToMove(Point p);
};

#endif
