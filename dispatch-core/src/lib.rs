//! dispatch-core: the domain, the rules, the ports and the VRP solver. No I/O.
