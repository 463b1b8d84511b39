"""The model: units, the world, the rules (see the modules)."""
