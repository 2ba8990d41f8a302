"""The robot opponent and hints: decisions for all three games at five levels.

- :mod:`bot.robot.levels`: the five levels and what each means per game.
- :mod:`bot.robot.gnubg_brain`: GNU Backgammon (the ``gnubg`` wheel), run only inside the
  robot's worker process.
- :mod:`bot.robot.jobs`: the functions that worker runs (backgammon through gnubg, Nannon
  through the exact solver).
- :mod:`bot.robot.endgames`: the shipped checkers endgame database (``data/``) and what the
  checkers search uses at each level (master's time, the database).
- :mod:`bot.robot.worker`: :class:`~bot.robot.worker.RobotWorker`, the async calls into the
  robot's worker process (a :class:`bot.workers.WorkerPool` the bot is given).
- :mod:`bot.robot.player`: ``choose_action(worker, match, seat, level, rng)``, the robot's next
  decision.
- Post-match analysis: :mod:`bot.robot.analysis` (each game's evaluator, and the jobs the
  analysis worker runs), :mod:`bot.robot.gnubg_analysis` (backgammon's evaluator, gnubg),
  :mod:`bot.robot.analysis_runner` (the service's runner on the analysis worker) and
  :mod:`bot.robot.analyse_cli` (``tablebot analyse FILE``).
- :mod:`bot.robot.hints`: the hint answers (``{"moves": ...}`` / ``{"cube": ...}``) that
  ``tablebot hint`` prints (:mod:`bot.robot.cli`).

No Discord and no database here: the game driver asks ``choose_action`` and acts on the answer.
"""
