"""Rules to plans, and plans to one scan per object: no connection, no driver."""
