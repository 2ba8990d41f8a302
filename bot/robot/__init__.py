"""The robot opponent and hints: decisions for all three games at five levels.

- :mod:`bot.robot.levels`: the five levels and what each means per game.
- :mod:`bot.robot.gnubg_brain`: GNU Backgammon (the ``gnubg`` wheel), run only inside the
  robot's worker process.
- :mod:`bot.robot.jobs`: the functions that worker runs (backgammon through gnubg, Nannon
  through the exact solver).
- :mod:`bot.robot.endgames`: the shipped checkers endgame database (``data/``) and what the
  checkers search uses at each level (master's time, the database).
- :mod:`bot.robot.worker`: the worker process (spawned, one, separate from the render worker,
  replaced when it dies) and the async calls into it.
- :mod:`bot.robot.player`: ``choose_action(match, level, rng)``, the robot's next decision.
- :mod:`bot.robot.hints`: the hint answers (``{"moves": ...}`` / ``{"cube": ...}``) that
  ``tablebot hint`` prints (:mod:`bot.robot.cli`).

No Discord and no database here: the game driver asks ``choose_action`` and acts on the answer.
"""
