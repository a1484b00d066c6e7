//! A scratch workspace with sample data of every kind (see `create`).
