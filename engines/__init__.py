"""Pure game rules for tablebot: Nannon, Backgammon and American checkers."""
