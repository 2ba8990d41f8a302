"""The Discord adapter room: the app, its cogs (commands and their click handlers), the
persistent components, the presenter and all user-facing wording. It holds no rules: every
decision comes from the service (:mod:`bot.service`)."""
