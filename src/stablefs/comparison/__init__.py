"""The main job from Python: :func:`stablefs.compare` and its :class:`Comparison`."""
