"""Storage: one small graph port and an adapter per backend (the only modules that import a driver)."""
