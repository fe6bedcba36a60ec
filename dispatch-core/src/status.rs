//! Order and line-item statuses: the default and custom sets, derived PARTIALLY_* aggregates and the one transition function.
