"""End-to-end tests: the real bot (bot.app.create_bot) against the fake Discord."""
