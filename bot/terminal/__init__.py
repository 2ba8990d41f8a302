"""The terminal adapter: ``tablebot play``, a match against the robot at a text prompt.

A second transport beside Discord, on the same service, commands, events, robot driver
(:class:`bot.robot.driver.RobotDriver`) and store:

- :mod:`bot.terminal.cli`: the arguments, the store and service, the match to resume or start;
- :mod:`bot.terminal.session`: the prompt loop (boards, the service's events, hints, the
  analysis at the end);
- :mod:`bot.terminal.lines`: what a typed line asks (a command, the terminal's own word, or
  nothing understood);
- :mod:`bot.terminal.wording`: every sentence it prints.

Boards are :mod:`render.text`'s, from the same job the pictures are drawn from
(:func:`bot.rendering.board_job`). It imports no Discord.
"""
