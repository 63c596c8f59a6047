// Seed 004's Point: a square, x the column (0 = file a), y the row counted from White's
// side (0 = rank 1).
#ifndef POINT_H
#define POINT_H

class Point
{
private:
    int x, y;

public:
    Point(int i, int j); // x = i; y = j;
    int GetX();
    int GetY();
    void SetX(int i);
    void SetY(int j);
    void SetPoint(int i, int j); // x = i; y = j;
    // Added: the design compares points (`board->GetEnPassant() == p`).
    bool operator==(Point p);
    bool operator!=(Point p);
};

#endif
