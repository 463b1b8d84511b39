"""Steering rules: pure numpy functions over whole arrays (no pymunk, no pyglet)."""
