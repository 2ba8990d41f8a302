"""The English catalogue, the reference every other locale translates: message id -> template.

Placeholders are named (``{name}``), filled by :func:`bot.discord.catalogue.text`; a literal
brace is doubled. Values arrive as the adapter will show them (names escaped, numbers
formatted); a message never builds another message's words itself.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # --- common words ----------------------------------------------------------------------
    "list.and.two": "{first} and {second}",
    "list.and.many": "{head} and {last}",
    "list.separator": ", ",
    "unit.point.one": "{count} point",
    "unit.point.other": "{count} points",
    "unit.game.one": "{count} game",
    "unit.game.other": "{count} games",
    "unit.points": "points",
    "unit.games": "games",
    "unit.error.one": "{count} error",
    "unit.error.other": "{count} errors",
    "unit.blunder.one": "{count} blunder",
    "unit.blunder.other": "{count} blunders",
    "game.nannon.title": "Nannon",
    "game.backgammon.title": "Backgammon",
    "game.checkers.title": "Checkers",
    "game.nannon.name": "nannon",
    "game.backgammon.name": "backgammon",
    "game.checkers.name": "checkers",
    "resign_level.nannon.single": "single",
    "resign_level.nannon.gammon": "a NANNON",
    "resign_level.backgammon.single": "single",
    "resign_level.backgammon.gammon": "gammon",
    "resign_level.backgammon.backgammon": "backgammon",
    "resign_level.checkers.single": "single",
    "event.resign_level.single": "single",
    "event.resign_level.gammon": "gammon",
    "event.resign_level.backgammon": "backgammon",
    # --- slash commands: descriptions, option descriptions, choices --------------------------
    "command.roll": "Roll the dice",
    "command.config.show": "Show this server's settings.",
    "command.config.lengths": "Default match lengths.",
    "command.config.lengths.nannon": "Points in a Nannon match",
    "command.config.lengths.backgammon": "Points in a backgammon match (0 = money game)",
    "command.config.lengths.checkers": "Games in a checkers match",
    "command.config.cube": "Default cube options for new matches.",
    "command.config.cube.cube": "Use the doubling cube",
    "command.config.cube.crawford": "Crawford rule in match play",
    "command.config.cube.jacoby": "Jacoby rule (money games)",
    "command.config.cube.auto_doubles": "Automatic doubles on tied openings (money games; 0 = off)",
    "command.config.automation": "Roll, move and pass automatically when forced.",
    "command.config.automation.auto_roll": "Roll for the player when doubling is impossible",
    "command.config.automation.auto_move": "Play the only legal move",
    "command.config.automation.auto_pass": (
        "Pass a roll with no legal move at once (off: the player confirms; new matches)"
    ),
    "command.config.times": "Reminder, claim and challenge times in minutes.",
    "command.config.times.reminder": "Ping an idle player after this many minutes",
    "command.config.times.claim": "Let the opponent claim the win after this many minutes",
    "command.config.times.challenge": "Open challenges expire after this many minutes",
    "command.config.threads": "Move each accepted match to its own thread.",
    "command.config.channels": "Where challenges may be posted.",
    "command.config.channels.action": "add/remove a channel, only this channel, or anywhere",
    "command.config.channels.channel": "The channel (for add, remove and only)",
    "command.config.ratelimit": "How many commands and clicks a member may send.",
    "command.config.ratelimit.actions": "Commands and clicks allowed ...",
    "command.config.ratelimit.seconds": "... per this many seconds",
    "command.config.robot": "Matches against tablebot, and /hint.",
    "command.config.robot.rated": "Robot matches change ratings and leaderboards (default off)",
    "command.config.robot.hints": "Allow /hint in matches between people too (default off)",
    "command.config.robot.pause_ms": (
        "The robot shows its move after this pause, in ms (default 1000)"
    ),
    "command.config.analysis": "Analyse matches when they end.",
    "command.config.analysis.robot": "Analyse matches against tablebot when they end (default on)",
    "command.config.analysis.people": "Analyse matches between people when they end (default off)",
    "command.sync": "Owner only: sync slash commands globally.",
    "command.config": "tablebot settings for this server (Manage Server only).",
    "command.games": "Your active matches here, with links.",
    "command.leaderboard": "The server's best players of a game.",
    "command.leaderboard.game": "Which game",
    "command.leaderboard.points": "Only matches of this length (0 = backgammon money games)",
    "command.stats": "A player's record, rating and NANNONs.",
    "command.stats.user": "Whose stats (you by default)",
    "command.stats.game": "One game only",
    "command.history": "A player's recent matches here.",
    "command.history.user": "Whose history (you by default)",
    "command.export": "Download a match as .mat or .pdn.",
    "command.export.match": "The match number (see /history)",
    "command.verify": "Check a match's dice against its seed.",
    "command.verify.match": "The match number (see /history)",
    "command.rules": "A short summary of a game's rules.",
    "command.rules.game": "Which game",
    "command.analyse": "How did we play? Analyse a finished match",
    "command.analyse.match": "The match's number (#)",
    "command.hint": "The robot's advice on your decision",
    "rules.nannon": (
        "**Nannon**: 6 spots, 3 checkers each, one die.\n"
        "- Start: one checker at HOME, one each on your spots 1 and 2. Your spot k is your "
        "opponent's spot 7-k.\n"
        "- Opening: each player rolls one die; the higher roll moves first and plays the "
        "*difference*. A tie is rolled again, and on a tie either player may turn the cube.\n"
        "- A checker at HOME enters on spot d; a checker on spot s moves to s+d, and past 6 "
        "it reaches SAFETY (no exact roll needed).\n"
        "- One checker per spot. You may not land on your own checker; landing on a lone "
        "opponent checker hits it back to its HOME. Checkers on adjacent spots form a prime "
        "and can't be hit.\n"
        "- You must move if you can; with no legal move the turn is forfeited.\n"
        "- Bear all 3 checkers to SAFETY to win 1 point, or 2 (a **NANNON**) if the loser has"
        " none in SAFETY, times the cube.\n"
        "- Cube: starts centred (showing 64). Before rolling, double if it is centred or "
        "yours; the opponent takes (owns it, stake doubles) or passes (loses at the old "
        "stake). A double must be answered before anything else.\n"
        "- Match play to N points (11 by default), with the Crawford rule: no doubling in the"
        " one game after a player first reaches N-1.\n"
        "- Shut your opponent out and react 📣 to shout NANNON!"
    ),
    "rules.backgammon": (
        "**Backgammon**: standard rules, 15 checkers each, two dice; doubles are played four "
        "times.\n"
        "- Use both dice if you can; if only one can be used, use the larger when either "
        "could be. With doubles, play as many as possible.\n"
        "- Checkers on the bar enter before anything else. Bear off only with all 15 in your "
        "home board; a higher roll bears off from the highest point only when no checker is "
        "higher.\n"
        "- Opening: one die each, the higher roll plays both numbers; ties are rolled again.\n"
        "- A game is 1 point, a gammon (loser bore off nothing) 2, a backgammon (and still "
        "has a checker on the bar or in the winner's home board) 3, times the cube.\n"
        "- Cube: double only before rolling, with a centred cube or one you own. A pass loses"
        " the stake before the double; a take owns the cube. No limit on redoubles.\n"
        "- Match play uses the Crawford rule. Money play (points 0) may use the Jacoby rule "
        "(gammons count single until the cube is turned) and automatic doubles on tied "
        "openings.\n"
        "- /resign offers single, gammon or backgammon; the opponent accepts or declines.\n"
        "- Moves in gnubg notation: `24/18 13/11`, `bar/22`, `6/off`, `8/5(2)`."
    ),
    "rules.checkers": (
        "**American checkers** (English draughts): 8x8 board, dark squares numbered 1-32.\n"
        "- Black starts on 1-12 and moves first; White starts on 21-32. Colours alternate "
        "each game of a match.\n"
        "- Men move and jump diagonally forward only; kings move and jump both ways.\n"
        "- Capturing is mandatory; you may choose any capture, not necessarily the longest, "
        "but a jump sequence once begun must be completed.\n"
        "- A man reaching the king row is crowned and its move ends there, even mid-jump.\n"
        "- No pieces or no legal move: you lose.\n"
        "- Draws: by agreement (/draw), on the third repetition of a position with the same "
        "side to move, or after 40 moves each with no capture and no man moved.\n"
        "- Match: a win scores 1, a draw ½ each; first to the match length wins, and a final "
        "tie is a drawn match.\n"
        "- Notation: `11-15` for a move, `22x15x8` for a jump (`22x8` when unambiguous)."
    ),
    "analysis.unit.equity": "thousandths of equity lost per decision",
    "analysis.unit.backgammon": "mEMG per decision",
    "analysis.unit.checkers": "thousandths of the score lost per move",
    "history.result.won": "won",
    "history.result.lost": "lost",
    "history.result.drawn": "drawn",
    "history.result.active": "active",
    "reminder.idle": (
        "<@{user_id}>, match #{match_id} is waiting for you (idle for {minutes} min). {name} "
        "is waiting."
    ),
    "reminder.claim": (
        "<@{user_id}>, {name} has not played in match #{match_id} for {minutes} min. You may "
        "claim the win."
    ),
    "engine.already_rolled": "You rolled already: pick a move (position {position_id}).",
    "engine.ambiguous_jump": "{text} fits {count} jumps in {fen}: {listing}; give the full path.",
    "engine.ambiguous_move": (
        "That move is ambiguous: {shown} with {roll} could be {options} (position {position_id})"
    ),
    "engine.auto_doubles_count": "Automatic doubles are a count >= 0, not {auto_doubles!r}.",
    "engine.auto_doubles_money_only": (
        "Automatic doubles are for money play only, not a {length}-point match."
    ),
    "engine.bad_dice": "A {what} is {count} dice from 1 to 6, not {dice!r}.",
    "engine.bad_path": (
        "Cannot read {text!r}: a path starts on a point or the bar and may end off the board "
        "(position {position_id})"
    ),
    "engine.bad_repeat": "Cannot read {text!r}: a repeat count is 1 to 4 (position {position_id})",
    "engine.bad_resign_level": "In {kind} you may resign {names}, not {level!r}.",
    "engine.both_colours_on_spot": "both colours on spot {spot} in {format_id}",
    "engine.cannot_resign_now": "You can't resign now: it is {phase_hint}.",
    "engine.capture_mandatory": "{text} is not legal in {fen}: a capture is mandatory ({listing}).",
    "engine.checkers_game_over": "{move} cannot be played: the game is over ({fen}).",
    "engine.checkers_illegal_move": "{text} is not a legal move in {fen}.",
    "engine.checkers_length": "A checkers match is at least 1 game long, not {length}.",
    "engine.checkers_move_illegal": "{move} is not a legal move in {fen}.",
    "engine.checkers_no_cube": "Checkers has no doubling cube.",
    "engine.checkers_not_your_turn": "It is your opponent's turn ({name} to move).",
    "engine.checkers_resign_level": "In checkers a resignation simply loses the game (level 1).",
    "engine.crawford": "Nobody may double in the Crawford game.",
    "engine.cube_only_options": "Jacoby and automatic doubles need the doubling cube.",
    "engine.dice_match_kind": "A dice match plays Nannon or backgammon, not {kind}.",
    "engine.double_after_opening": "Doubling comes after the opening roll.",
    "engine.double_before_rolling": (
        "You rolled already: double before rolling (position {position_id})."
    ),
    "engine.double_on_turn": "Only the player on turn may double, before rolling.",
    "engine.double_waiting": "A double is waiting for an answer.",
    "engine.double_waiting_answer": "A double is waiting for an answer: take or pass first.",
    "engine.draw_offer_waiting": "A draw offer is waiting for an answer: accept or decline it.",
    "engine.fen_bad": "Bad position {fen}: {exc}.",
    "engine.fen_bad_token": "Bad position {fen}: {token}.",
    "engine.fen_not_text": "{fen!r} is not a PDN FEN string.",
    "engine.fen_sections": "Bad position {fen}: need one 'W' and one 'B' section.",
    "engine.fen_square_out_of_range": "Bad position {fen}: {token} is not within 1..32.",
    "engine.fen_square_twice": "Bad position {fen}: square {square} is listed twice.",
    "engine.fen_too_long": "{fen} is too long for a PDN FEN.",
    "engine.illegal_play_position": "That move is illegal: {play} does not fit position {id}",
    "engine.impossible_with_roll": (
        "That move is illegal: {shown} is not possible with {roll} (position {position_id})"
    ),
    "engine.jacoby_money_only": (
        "The Jacoby rule is for money play only, not a {length}-point match."
    ),
    "engine.jump_not_completed": (
        "{text} is not a legal jump in {fen} (a jump must be completed); legal: {listing}."
    ),
    "engine.match_id_cube_owner": (
        "{text} is not a valid gnubg Match ID: cube owner bits 10 mean nothing"
    ),
    "engine.match_id_dice": "{text} is not a valid gnubg Match ID: dice {dice_0}-{dice_1}",
    "engine.match_id_form": (
        "{match_id} is not a gnubg Match ID: that is {MATCH_ID_LENGTH} characters of A-Z, "
        "a-z, 0-9, + and /"
    ),
    "engine.match_id_game_state": (
        "{text} is not a valid gnubg Match ID: game state {values_game_state} is not 0..4"
    ),
    "engine.match_id_money": (
        "{text} is not a valid gnubg Match ID: a money game has no Crawford game and no score"
    ),
    "engine.match_id_score": (
        "{text} is not a valid gnubg Match ID: score {score_0}-{score_1} is past the match "
        "length {length}"
    ),
    "engine.match_id_stray_bits": (
        "{text} is not a valid gnubg Match ID: it has stray bits after the scores"
    ),
    "engine.match_length": "A match length is 0 (money) or more points, not {length!r}.",
    "engine.match_over": "The match is over.",
    "engine.money_not_backgammon": "Money play (match length 0) is for backgammon only.",
    "engine.move_not_text": "A move is text, not {type_name}",
    "engine.moves_backwards": (
        "That move is illegal: in {shown} a checker moves backwards; checkers move from "
        "higher to lower points (position {position_id})"
    ),
    "engine.must_pass": (
        "{text!r}: no move is legal with this roll; play {NO_MOVE!r} to pass the turn "
        "(position {position_id}, roll {roll})"
    ),
    "engine.nannon_game_over": "{text!r}: the game is over (position {position_id}, roll {roll})",
    "engine.nannon_move_unreadable": "{text!r} is not a Nannon move like H/3, 2/5 or 5/S",
    "engine.needs_seat": "{type_name} needs a player seat (0 or 1).",
    "engine.no_checker_can_move": (
        "That move is illegal: no checker can move with {roll}, the turn passes (position "
        "{position_id})"
    ),
    "engine.no_cube": "This match is played without the cube.",
    "engine.no_double": "There is no double to answer.",
    "engine.no_draw_offer": "There is no draw offer to answer.",
    "engine.no_draw_offers": "There are no draw offers in {kind}.",
    "engine.no_jump_here": "{text} is not legal in {fen}: no jump here.",
    "engine.no_move_not_stuck": (
        "{NO_MOVE!r} is only for a roll that can't be played: pick a move "
        "(position {position_id}, roll {roll})"
    ),
    "engine.no_resignation": "There is no resignation to answer.",
    "engine.no_roll_to_play": "There is no roll to play now, so {text!r} can't be a move.",
    "engine.not_a_checkers_action": "{type_name} does not apply to checkers.",
    "engine.not_a_checkers_move": "{text!r} is not a checkers move (in {fen}).",
    "engine.not_a_fen": "{fen} is not a PDN FEN; expected e.g. 'B:W21,22,K30:B1,2,K9'.",
    "engine.not_a_nannon_move": "{shown!r} is not a Nannon move like H/3, 2/5 or 5/S",
    "engine.not_a_nannon_position_id": (
        "{shown!r} is not a Nannon position ID like '012-012' (3 digits 0..7 for the side on "
        "roll, a dash, 3 for the opponent)"
    ),
    "engine.not_a_place": "{what}: {p!r} is not a place 0..7",
    "engine.not_a_point": (
        "Cannot read {text!r}: {value} is not a point (1-24, bar or off; position {position_id})"
    ),
    "engine.not_a_position_id": "{text} is not a gnubg Position ID",
    "engine.not_a_seat": "{player!r} is not a seat of this match.",
    "engine.not_an_action": "{action!r} is not an action in a {kind} match.",
    "engine.not_enough_played": (
        "That move is illegal: {shown} does not play as much of {roll} as the rules require "
        "(position {position_id})"
    ),
    "engine.not_your_turn": "It's not your turn: wait for your opponent to play.",
    "engine.nothing_to_hit": (
        "{text!r}: there is nothing to hit there (position {position_id}, roll {roll})"
    ),
    "engine.opening_done": "The opening roll of game {game_number} is done; it is {phase_hint}.",
    "engine.opening_roll_first": (
        "This game starts with an opening roll: each player rolls one die."
    ),
    "engine.opponent_owns_cube": "Your opponent owns the cube: only they may redouble.",
    "engine.own_double": "Your opponent must take or pass your double.",
    "engine.own_draw_offer": "Your draw offer is waiting for your opponent's answer.",
    "engine.own_resignation": "Your opponent must accept or decline your resignation.",
    "engine.places_count": "{what} must be {CHECKERS} places, not {places!r}",
    "engine.places_not_sorted": "places must be sorted ascending in {position_id!r}",
    "engine.position_id_both_off": (
        "{text} is not a valid gnubg Position ID: both sides have borne off"
    ),
    "engine.position_id_both_on_point": (
        "{text} is not a valid gnubg Position ID: both sides have checkers on point {point}"
    ),
    "engine.position_id_form": (
        "{position_id} is not a gnubg Position ID: that is {POSITION_ID_LENGTH} characters of"
        " A-Z, a-z, 0-9, + and /"
    ),
    "engine.position_id_not_canonical": (
        "{text} is not a valid gnubg Position ID: its last character is not canonical"
    ),
    "engine.position_id_stray_bits": (
        "{text} is not a valid gnubg Position ID: it has stray bits after the last point"
    ),
    "engine.position_id_too_many": (
        "{text} is not a valid gnubg Position ID: one side has {on_board} checkers, more than"
        " {CHECKERS}"
    ),
    "engine.resignation_waiting": "A resignation is waiting for an answer: accept or decline it.",
    "engine.resignation_waiting_first": (
        "A resignation is waiting for an answer: accept or decline it first."
    ),
    "engine.roll_first": "Roll first, then move (position {position_id}).",
    "engine.safety_never_moves": (
        "{text!r}: a checker in SAFETY never moves again (position {position_id}, roll {roll})"
    ),
    "engine.square_out_of_range": "{text} names a square outside 1..32 (position {fen}).",
    "engine.too_many_checkers": (
        "That move is illegal: {shown} moves more checkers than {roll} allows (position "
        "{position_id})"
    ),
    "engine.two_on_one_spot": "{what}: two checkers on one spot in {places!r}",
    "engine.unreadable_checkers_move": (
        "{text} is not a checkers move in {fen}: write 11-15 for a move or 22x15x8 for a jump."
    ),
    "engine.unreadable_move": (
        "Cannot read {text!r} as a backgammon move: write it like 24/18 13/11 (position "
        "{position_id})"
    ),
    "engine.unreadable_token": (
        "Cannot read {text!r} as a backgammon move: {token!r} is not like 24/18, bar/22, "
        "6/off or 8/5(2) (position {position_id})"
    ),
    "engine.wrong_distance": (
        "{text!r} does not move {roll}: a checker on {place_name} goes to {place_name_target}"
        " (position {position_id}, roll {roll})"
    ),
    "engine.blocked_by_own": (
        "{text!r}: {place_name} is blocked, your own checker is there (position "
        "{position_id}, roll {roll})"
    ),
    "engine.blocked_by_prime": (
        "{text!r}: {place_name} is blocked, that checker is in a prime and can't be hit "
        "(position {position_id}, roll {roll})"
    ),
    "engine.no_checker_home": (
        "{text!r}: you have no checker at HOME (position {position_id}, roll {roll})"
    ),
    "engine.no_checker_on_spot": (
        "{text!r}: you have no checker at spot {spot} (position {position_id}, roll {roll})"
    ),
    "engine.phase.opening": "time for the opening roll",
    "engine.phase.opening_tie": "time to roll the opening again (or double)",
    "engine.phase.roll": "seat {seat}'s turn to roll",
    "engine.phase.move": "seat {seat}'s turn to move",
    "engine.phase.cube_offered": "time to answer a double",
    "engine.phase.resign_offered": "time to answer a resignation",
    "engine.phase.draw_offered": "time to answer a draw offer",
    "engine.phase.match_over": "the end of the match",
    # --- buttons, menus -------------------------------------------------------------------------
    "button.roll": "Roll",
    "button.double": "Double",
    "button.take": "Take",
    "button.pass": "Pass",
    "button.passok": "Yes, pass",
    "button.resign": "Resign",
    "button.rs1": "Resign this game",
    "button.rs2": "Resign a gammon",
    "button.rs3": "Resign a backgammon",
    "button.leave": "Concede the match",
    "button.resyes": "Accept resignation",
    "button.resno": "Decline resignation",
    "button.draw": "Offer draw",
    "button.drawyes": "Accept draw",
    "button.drawno": "Decline draw",
    "button.accept": "Accept",
    "button.decline": "Decline",
    "button.cancel": "Cancel",
    "button.export": "Export",
    "button.rematch": "Rematch",
    "button.claim": "Claim win",
    "button.page": "Page",
    "button.previous": "Previous",
    "button.next": "Next",
    "select.no_move": "No legal move: pass the turn",
    "select.confirm_pass": "No legal move: confirm the pass",
    "select.choose_move": "Choose your move",
    # --- matches and challenges --------------------------------------------------------------
    "length.money": "money game",
    "length.to": "to {length}",
    "match.title": "{game} · {first} vs {second} · {length}",
    "match.footer": "Match #{match_id}",
    "match.candidates": (
        "You have more than one match here; use the match's thread, or one of these:"
    ),
    "match.candidate": "- #{match_id} {game} vs {name} in (position {position_id}, roll {roll})",
    "challenge.title": "{game} challenge",
    "command.challenge": "Challenge someone (or anyone) to a match",
    "command.challenge.game": "Which game",
    "command.challenge.opponent": "Who you challenge (leave empty: anyone may accept)",
    "command.challenge.points": (
        "Match length: points (0 = money game, backgammon) or games (checkers)"
    ),
    "command.challenge.cube": "Play with the doubling cube",
    "command.challenge.crawford": "Use the Crawford rule",
    "command.challenge.jacoby": "Jacoby rule (money games)",
    "command.challenge.auto_doubles": "Automatic doubles per game (money games)",
    "command.challenge.level": "Against tablebot: the robot's level (default intermediate)",
    "command.move": "Play a move, e.g. 24/18 13/11, H/3 or 22x15",
    "command.move.play": "The move in the game's notation (pick one from the list)",
    "command.double": "Offer a double",
    "command.take": "Take the offered double",
    "command.pass": "Pass the offered double (lose this game)",
    "command.resign": "Resign this game, or concede the match",
    "command.resign.level": "How much to resign (default: a single game)",
    "command.draw": "Checkers: offer a draw, or accept one",
    "command.board": "Post the current board again",
    "refusal.challenge_yourself": (
        "You can't challenge yourself. Leave the opponent empty to let anyone accept."
    ),
    "refusal.bots_dont_play": "Bots don't play here: challenge a person, or anyone.",
    "refusal.board_match_over": "Match #{match_id} is over: see /history or /export.",
    "refusal.pick_from_menu": "Pick a move from the menu.",
    "done.played": "Played.",
    "done.rolled": "Rolled.",
    "done.doubled": "Doubled.",
    "done.taken": "Taken.",
    "done.passed": "Passed.",
    "done.conceded": "You conceded the match.",
    "done.resignation_offered": "Resignation offered.",
    "done.done": "Done.",
    "done.board_posted": "Board posted.",
    "done.rematch_offered": "Rematch offered.",
    "menu.pass_confirm": "Pass the double and lose this game at the current stake?",
    "menu.resign": (
        "Resign how much? The opponent accepts or declines a game resignation; conceding the "
        "match ends it at once."
    ),
    "challenge.declined": "{name} declined the challenge.",
    "challenge.withdrawn": "{name} withdrew the challenge.",
    "export.caption": "Match #{match_id}:",
    "shout.someone": "Someone",
    "shout": "# {shout} NANNON! {shout}\n**{name}** shouts it: a shutout in game {game}!",
    "refusal.not_manager": (
        "Only members with the Manage Server permission can change tablebot's settings."
    ),
    "refusal.not_owner": "Only the bot's owner can sync commands globally.",
    "refusal.which_channel": "Say which channel to {action}.",
    "refusal.channel_not_listed": "{channel} is not in the list of challenge channels.",
    "sync.done": "Synced {count} commands globally (they may take up to an hour to appear).",
    "settings.on": "on",
    "settings.off": "off",
    "settings.any_channel": "any channel",
    "settings.title": "**tablebot settings for this server**",
    "settings.lengths": (
        "- Default lengths: Nannon {nannon}, backgammon {backgammon}, checkers {checkers} game(s)"
    ),
    "settings.cube": (
        "- Cube {cube}, Crawford {crawford}, Jacoby {jacoby}, automatic doubles {auto_doubles}"
    ),
    "settings.automation": (
        "- Auto-roll {auto_roll}, auto-move {auto_move}, auto-pass {auto_pass} (applies to "
        "new matches)"
    ),
    "settings.times": (
        "- Reminder after {reminder} min, claim after {claim} min, challenges expire after "
        "{challenge} min"
    ),
    "settings.threads": "- Threads for matches: {threads}",
    "settings.channels": "- Challenges allowed in: {channels}",
    "settings.rate_limit": "- Rate limit: {actions} commands or clicks per {seconds} s per member",
    "settings.saved": "Saved.\n{settings}",
    "stats.counter.gammon": "gammons",
    "stats.counter.backgammon": "backgammons",
    "stats.counter.nannon": "NANNONs",
    "stats.counter": "{counter} {won}-{lost}",
    "stats.shouted": ", shouted {count}",
    "stats.title": "Stats of {name}",
    "stats.empty": "No finished matches here yet.",
    "stats.rating": "Rating {rating} ({experience} exp)",
    "stats.matches": "Matches {played}: {record}",
    "stats.points": "Points {points}",
    "stats.streak.wins": "Streak: {count} wins",
    "stats.streak.losses": "Streak: {count} losses",
    "leaderboard.title": "{game} leaderboard",
    "leaderboard.money": " · money games",
    "leaderboard.matches_to": " · matches to {points}",
    "leaderboard.empty": "Nobody has finished a match here yet.",
    "leaderboard.row": "**{rank}.** {name} · {rating} · {record} · {points} pts",
    "leaderboard.footer": "rank · name · rating · W-L · points won-lost",
    "list.money": "money",
    "history.title": "Recent matches of {name}",
    "history.default_title": "Recent matches",
    "history.empty": "No matches here yet.",
    "history.row": (
        "`#{match_id}` {game} {length} vs {name}: **{result}** {score}{change} <t:{when}:R>"
    ),
    "history.choice": "#{match_id} {game} vs {name} ({result})",
    "games.empty": "You have no active matches here. Start one with /challenge.",
    "games.your_turn": " · **your turn**",
    "games.row": "- `#{match_id}` {game} {length} vs {name}, {score}{turn}: {link}",
    "games.title": "Your active matches:",
    "export.file": "Match #{match_id}: `{filename}`",
    "verify.verdict.secret": "Seed still secret",
    "verify.verdict.ok": "Every roll checks out ✅",
    "verify.verdict.mismatch": "The rolls do NOT match the seed ❌",
    "verify.title": "Dice of match #{match_id}: {verdict}",
    "verify.commitment": "Commitment (SHA-256)",
    "verify.seed": "Seed",
    "verify.seed_secret": "revealed at the end",
    "verify.dice_rolled": "Dice rolled",
    "error.board_not_posted": (
        "Done, but Discord would not take the new board just now. Type /board to post it again."
    ),
    "error.result_not_posted": (
        "Done, but Discord would not take the result message just now. /history and /board "
        "show where the match stands."
    ),
    "error.first_board_not_posted": (
        "The match has started, but Discord would not take its first board just now. Type "
        "/board to post it."
    ),
    "shout.footer": "Match #{match_id} · game {game} · NANNON",
    "shout.invite": "**NANNON!** <@{user_id}>, react {shout} to this message to shout it!",
    "score.line": "{first} {first_points} to {second_points} {second}",
    "score.length": " ({length})",
    "score.crawford": ", Crawford game",
    "dice.not_rolled": "not rolled",
    "cube.offered": "{name} doubles to {value}",
    "cube.centred": "{value}, centred",
    "cube.owned": "{value}, owned by {name}",
    "colour.white": "white",
    "colour.black": "black",
    "prompt.opening": "Roll for the opening.",
    "prompt.opening_tie": "The opening roll tied: either player may roll again, or double.",
    "prompt.roll": "{name} to roll.",
    "prompt.roll_or_double": "{name} to roll or double.",
    "prompt.move_colour": "{name} ({colour}) to move.",
    "prompt.must_pass": '{name} rolled {dice}: no legal move. Pass with "no move".',
    "prompt.move": "{name} rolled {dice}: pick a move.",
    "prompt.take_or_pass": "{doubler} doubles to {value}. {name}: take or pass?",
    "prompt.resignation": "{resigner} offers to resign ({what}). {name}: accept or decline?",
    "prompt.draw": "{offerer} offers a draw. {name}: accept or decline?",
    "prompt.match_over": "The match is over.",
    "prompt.play": "{name} to play.",
    "prompt.your_move": "Your move.",
    "result.game_drawn": "Game {number} is drawn.",
    "result.how.single": "",
    "result.how.gammon": " with a gammon",
    "result.how.backgammon": " with a backgammon",
    "result.how.nannon": " with a NANNON: {loser} has no checker in safety",
    "result.how.drop": ": {loser} passed the double",
    "result.how.resign": ": {loser} resigned",
    "result.how.draw": "",
    "result.how.forfeit": ": {loser} conceded",
    "result.jacoby": " (not counted double: the Jacoby rule, the cube was never turned)",
    "result.game_won": "Game {number}: {name} wins {won}{how}.",
    "result.score": "Score: {score}.",
    "result.next_opening": "Game {number} opening roll: {first} {d0}, {second} {d1}.",
    "result.match_over": "Match over · {title}",
    "result.game_over": "Game over · {title}",
    "result.match_won": "**{name} wins the match!**",
    "result.match_drawn": "**The match is drawn.**",
    "result.rating": "{name}: rating {before} -> {after} ({delta})",
    "result.seed": (
        "Dice seed: `{seed}` (commitment `{commitment}`); check it with `/verify match:{match_id}`."
    ),
    "turn.game_number": " · game {number}",
    "turn.field.turn": "Turn",
    "turn.whose": "{name} ({colour})",
    "turn.field.dice": "Dice",
    "turn.field.score": "Score",
    "turn.field.cube": "Cube",
    "turn.field.pips": "Pips",
    "turn.pips": "{first} {first_pips}, {second} {second_pips}",
    "turn.field.last_move": "Last move",
    "turn.last_move": "{name}: {move}",
    "turn.field.position.nannon": "Position",
    "turn.field.position.backgammon": "Position ID",
    "turn.field.position.checkers": "FEN",
    "turn.field.match_id": "Match ID",
    "turn.footer": "Match #{match_id} · move {version}",
    "turn.ping": "<@{user_id}>, it's your turn.",
    "turn.many_moves": (
        "{count} legal moves: the menu shows the first {shown}. Type `/move` for any other."
    ),
    "challenge.accepted": "{name} accepted {challenger}'s challenge: match #{match_id}.",
    "what.game": "{game}, {length}",
    "what.cube": "cube",
    "what.no_cube": "no cube",
    "what.crawford": "Crawford",
    "what.no_crawford": "no Crawford",
    "what.jacoby": "Jacoby",
    "what.auto_doubles": "up to {count} automatic doubles",
    "what.options": " ({options})",
    "challenge.invitation": "{challenger} challenges {opponent} to {what}.",
    "challenge.ping": "<@{user_id}>, you are challenged!",
    "challenge.open_invitation": "{challenger} challenges anyone to {what}. First to accept plays.",
    "challenge.footer": "Challenge #{challenge_id}",
    "challenge.expired_for": (
        "{challenger}'s challenge to {opponent} expired: it was not answered in time."
    ),
    "challenge.expired_open": "{challenger}'s challenge expired: nobody accepted it in time.",
    # --- events (the lines above the board) --------------------------------------------------
    "event.pass_hint": 'play "{no_move}" to pass the turn',
    "event.turn_passes": "the turn passes to {name}",
    "event.no_legal_move": "{name} has no legal move: {then}.",
    "event.rolls": "{name} rolls {dice}.",
    "event.rolls_turn_passes": "{name} rolls {dice}: no legal move, the turn passes to {other}.",
    "event.rolls_must_pass": "{name} rolls {dice}: no legal move, {hint}.",
    "event.plays": "{name} plays {move}.",
    "event.plays_forced": "{name} plays {move} (the only legal move, played automatically).",
    "event.doubles": "{name} doubles to {value}.",
    "event.takes": "{name} takes: the cube is at {value}.",
    "event.passes": "{name} passes.",
    "event.resigns": "{name} resigns.",
    "event.offers_resignation": "{name} offers to resign a {level} game.",
    "event.accepts_resignation": "{name} accepts the resignation.",
    "event.declines_resignation": "{name} declines the resignation: play on.",
    "event.offers_draw": "{name} offers a draw.",
    "event.accepts_draw": "{name} accepts the draw.",
    "event.declines_draw": "{name} declines the draw: play on.",
    "event.claims": "{idle} was idle too long: {name} claims the match.",
    "event.leaves": "{name} leaves the match.",
    "event.crawford": "Game {number} is the Crawford game: no doubling.",
    "event.match_drawn": "The match is drawn, {score}.",
    "event.match_won": "{name} wins the match {score}.",
    "event.money_game": "a money game",
    "event.match_to": "to {length}",
    "event.started": (
        "Match #{match_id}: {first} vs {second}, {game} {to}. Dice commitment (SHA-256 of the "
        "secret seed): {commitment}."
    ),
    "event.opening_tie": "Opening roll: both roll {die}.",
    "event.opening_tie_double": "Opening roll: both roll {die}. Either player may double now, "
    "or roll again.",
    "event.opening_tie_again": "Opening roll: both roll {die}. Rolling again.",
    "event.opening_tie_auto_double": (
        "Opening roll: both roll {die}. Rolling again. Automatic double: the cube is at {cube}."
    ),
    "event.opening_difference": "moves first with a {difference}",
    "event.opening_plays": "plays {high}-{low} first",
    "event.opening": "Opening roll: {first} {d0}, {second} {d1}: {name} {plays}.",
    "event.game_drawn": "Game {number} is drawn. Score: {score}.",
    "event.game_won": "{name} wins game {number} {how}: {won}{cube}. Score: {score}.",
    "event.game_won_cube": " (cube {cube})",
    "event.won_by_nannon": "with a NANNON!",
    "event.won_by": "by {result}",
    "result.single": "a single game",
    "result.gammon": "a gammon",
    "result.backgammon": "a backgammon",
    "result.nannon": "a NANNON",
    "result.drop": "a passed double",
    "result.resign": "resignation",
    "result.forfeit": "forfeit",
    "result.draw": "a draw",
    # --- refusals (the service's codes, bot.service.errors.Refusal) --------------------------
    "refusal.unknown_game": "There is no game called {given}: choose {choices}.",
    "refusal.no_such_match": "There is no match #{match_id} in this server.",
    "refusal.no_such_challenge": "There is no challenge #{challenge_id} in this server.",
    "refusal.not_a_player": "You are not playing in match #{match_id}.",
    "refusal.unknown_setting": "There is no setting called {setting}.",
    "refusal.setting_fixed": "{setting} can't be changed.",
    "refusal.setting_not_on_off": "{setting} is on or off, not {value}.",
    "refusal.setting_not_a_number": "{setting} is a whole number, not {value}.",
    "refusal.setting_out_of_range": "{setting} must be between {low} and {high}, not {value}.",
    "refusal.not_a_channel": "Challenge channels are channel ids, not {value}.",
    "refusal.too_many_channels": "At most {most} challenge channels.",
    "refusal.claim_before_reminder": (
        "The claim time must be at least the reminder time ({reminder_minutes} minutes)."
    ),
    "refusal.bot_opponent": "Bots can't play: challenge a person, or leave the opponent open.",
    "refusal.self_challenge": "You can't challenge yourself.",
    "refusal.channel_not_allowed": "Challenges are allowed only in {channels}.",
    "refusal.length_not_whole": "The match length is a whole number, not {length}.",
    "refusal.money_not_backgammon": "Money play (points: 0) is for backgammon only.",
    "refusal.length_out_of_range": (
        "A {game} match is {lowest} to {highest} {unit} long, not {length}."
    ),
    "refusal.checkers_cube_options": "Checkers has no doubling cube: cube options don't apply.",
    "refusal.money_only_options": (
        "Jacoby and automatic doubles are for money games only (backgammon, points: 0)."
    ),
    "refusal.auto_doubles_out_of_range": (
        "Automatic doubles are 0 to {highest} per game, not {value}."
    ),
    "refusal.cube_only_options": "Jacoby and automatic doubles need the doubling cube.",
    "refusal.own_challenge": "You can't play against yourself.",
    "refusal.challenge_for_other": "This challenge is for {name}.",
    "refusal.challenge_taken": "This challenge was already accepted, withdrawn or expired.",
    "refusal.challenge_accepted": "This challenge was already accepted.",
    "refusal.challenge_expired": (
        "This challenge expired: nobody answered it in time. Start a new one."
    ),
    "refusal.challenge_closed": "This challenge is {status}.",
    "refusal.open_challenge_decline": "An open challenge can't be declined: just leave it.",
    "refusal.only_opponent_declines": "Only {name} can decline this challenge.",
    "refusal.only_challenger_cancels": "Only {name} can cancel this challenge.",
    "refusal.challenge_answered": "This challenge was answered already.",
    "refusal.match_still_on": "Match #{match_id} is still on: finish it first.",
    "refusal.bad_robot_level": "The robot plays at {levels}, not {value}.",
    "refusal.hints_off": (
        "Hints are for matches against tablebot here: a server admin can allow them in "
        "matches between people with /config robot."
    ),
    "refusal.no_hint": (
        "Nothing for you to decide right now: /hint works on your roll to play, before your "
        "roll when you may double, and when you are doubled."
    ),
    "refusal.analysis_unavailable": ("Analysis of {game} matches is not available on this bot."),
    "refusal.match_not_finished": (
        "Match #{match_id} is still on: it can be analysed once it is finished."
    ),
    "refusal.analysis_pending": (
        "Match #{match_id} is being analysed already ({status}): the report will be posted in "
        "<#{channel_id}>."
    ),
    "refusal.analysis_done": "Match #{match_id} was analysed already: see the report in {link}.",
    "refusal.stale_board": (
        "That board is out of date: the match has moved on. Use the latest board."
    ),
    "refusal.match_changed": (
        "This match changed while you were acting: look at the latest board and try again."
    ),
    "refusal.match_over": "Match #{match_id} is over.",
    "refusal.not_your_turn": "It's {name}'s turn.",
    "refusal.no_dice_in_checkers": "Checkers has no dice: pick a move.",
    "refusal.already_rolled": "You rolled already: pick a move.",
    "refusal.opening_roll_first": "The opening roll comes first: roll again (either player may).",
    "refusal.roll_first": "Roll first, then move.",
    "refusal.empty_move": "Type a move, e.g. one from the list.",
    "refusal.move_too_long": "That is far too long to be a move.",
    "refusal.checkers_no_cube": "Checkers has no doubling cube.",
    "refusal.own_double": "Only {name} can take or pass your double.",
    "refusal.doubled": "You were doubled: take or pass first.",
    "refusal.waiting_for_take": "Waiting for {name} to take or pass your double.",
    "refusal.waiting_for_resign_answer": "Waiting for {name} to answer your resignation.",
    "refusal.answer_resignation": "Answer {name}'s resignation first: accept or decline it.",
    "refusal.waiting_for_draw_answer": "Waiting for {name} to answer your draw offer.",
    "refusal.answer_draw": "Answer {name}'s draw offer first: accept or decline it.",
    "refusal.bad_resign_level": "Resign single, gammon or backgammon, not {value}.",
    "refusal.nobody_to_claim": "Either player may roll now: there is nobody to claim against.",
    "refusal.claim_own_wait": "The match is waiting for you: you can't claim it.",
    "refusal.claim_too_early": (
        "You can claim the match when {name} has been idle for {minutes} minutes: {left} more "
        "to go."
    ),
    "refusal.fallback": "That is not possible right now.",
    "refusal.slow_down.one": (
        "Slow down: you're sending commands too fast. Try again in {seconds} second."
    ),
    "refusal.slow_down.other": (
        "Slow down: you're sending commands too fast. Try again in {seconds} seconds."
    ),
    "refusal.not_here": "You can't use this command here.",
    "refusal.server_only": "This command works in a server only.",
    "refusal.no_match_here": (
        "You have no active match here. Start one with /challenge, or use /games to find yours."
    ),
    "error.apology": (
        "Sorry, something went wrong on my side. It has been logged; please try again."
    ),
    "error.restarting": "The bot is restarting: nothing was done. Please try again in a moment.",
    "refusal.not_in_match": "This is not your match: only its two players can use it.",
    "refusal.waits_for": "It's not your turn: the match waits for {name}.",
    "challenge_status.open": "open",
    "challenge_status.accepted": "accepted",
    "challenge_status.declined": "declined",
    "challenge_status.cancelled": "cancelled",
    "challenge_status.expired": "expired",
    # --- the robot and /hint -------------------------------------------------------------------
    "robot.level_for_robot_only": (
        "The level is for matches against tablebot: pick tablebot as the opponent to play the "
        "robot."
    ),
    "robot.failed": (
        "tablebot could not work out its next move just now (its engine failed; this is "
        "logged). Type /board to let it try again, or claim the match if it stays stuck."
    ),
    "robot.hint_failed": "The robot could not work out a hint just now: please try again.",
    "robot.rematch_started": "Rematch started: the robot accepted at once.",
    "robot.not_ready": "The robot is not here yet: try again in a moment.",
    "robot.server_only": "Challenges work in a server only.",
    "robot.unavailable": (
        "Sorry, {game} against the robot is not available on this platform. Challenge a "
        "person instead."
    ),
    "robot.challenge": "{challenger} challenges {robot} ({level}) to {what}. {robot} accepts.",
    "robot.settings.rated": "rated (ratings and leaderboards)",
    "robot.settings.unrated": "unrated",
    "robot.settings.hints_everywhere": "also between people",
    "robot.settings.hints_robot_only": "against the robot only",
    "robot.settings": "- Robot matches {rated}; /hint {hints}; the robot's pause {pause_ms} ms",
    "robot.record.level": "{level} {won}-{lost}{drawn}",
    "robot.record": "Against {robot}: {levels}",
    "robot.level.beginner": "beginner",
    "robot.level.intermediate": "intermediate",
    "robot.level.advanced": "advanced",
    "robot.level.expert": "expert",
    "robot.level.master": "master",
    "hint.scale.search": "the search's estimate, from -1 (a loss) to +1 (a win)",
    "hint.scale.money": "in points, for a cube of 1",
    "hint.scale.match": "in match winning chances, from -1 (the match lost) to +1 (won)",
    "hint.equities": "Equities for you, {scale}.",
    "hint.no_legal_move": "There is no legal move to play.",
    "hint.best_moves": "**Best moves** ({count} legal):",
    "hint.move_line": "{rank}. `{move}` {equity}",
    "hint.no_double_needed": (
        "**No double: just roll.** A win at the cube's value already takes the match."
    ),
    "hint.cube_action": "**Cube action: {action}.**",
    "hint.no_double": "No double: {equity}",
    "hint.double_take": "Double, take: {equity}",
    "hint.double_pass": "Double, pass: {equity}",
    "hint.take_free": (
        "**Take.** The doubler's win already takes the match: taking costs you nothing."
    ),
    "hint.take_action": "**{action}.**",
    "hint.take": "Take: {equity}",
    "hint.pass": "Pass: {equity}",
    "hint.action.no_double_take": "no double, take",
    "hint.action.double_take": "double, take",
    "hint.action.double_pass": "double, pass",
    "hint.action.too_good_to_double_pass": "too good to double, pass",
    "hint.answer.take": "Take",
    "hint.answer.pass": "Pass",
    "analysis.rating.supernatural": "Supernatural",
    "analysis.rating.world_class": "World class",
    "analysis.rating.expert": "Expert",
    "analysis.rating.advanced": "Advanced",
    "analysis.rating.intermediate": "Intermediate",
    "analysis.rating.casual_player": "Casual player",
    "analysis.rating.beginner": "Beginner",
    "analysis.rating.awful": "Awful!",
    # --- /verify -------------------------------------------------------------------------------
    "verify.no_dice": "Match #{match_id} has used no dice.",
    "verify.still_on": (
        "Match #{match_id} is still on: {count} dice rolled so far. The seed (commitment "
        "{commitment}) is revealed when it ends."
    ),
    "verify.ok": (
        "All {count} dice of match #{match_id} check out against seed {seed} (commitment "
        "{commitment})."
    ),
    "verify.count_differs": (
        "The dice of match #{match_id} do NOT check out: {drawn} dice were drawn from seed "
        "{seed}, but the log shows {count}."
    ),
    "verify.mismatch": "The dice of match #{match_id} do NOT match the seed {seed}.",
    # --- the bot's permissions -----------------------------------------------------------------
    "permission.view_channel": "View Channels",
    "permission.send_messages": "Send Messages",
    "permission.send_messages_in_threads": "Send Messages in Threads",
    "permission.embed_links": "Embed Links",
    "permission.attach_files": "Attach Files",
    "permission.read_message_history": "Read Message History",
    "permission.create_public_threads": "Create Public Threads",
    "permission.add_reactions": "Add Reactions",
    "permission.missing.one": (
        "I can't host a match in this channel: I'm missing the {names} permission here. A "
        "server admin can grant it to tablebot in this channel's settings, or you can "
        "challenge in another channel."
    ),
    "permission.missing.other": (
        "I can't host a match in this channel: I'm missing the {names} permissions here. A "
        "server admin can grant them to tablebot in this channel's settings, or you can "
        "challenge in another channel."
    ),
    # --- a match's thread, gone ----------------------------------------------------------------
    "thread_gone.deleted": "This match's thread was deleted: the match goes on here.",
    "thread_gone.locked": "This match's thread was locked: the match goes on here.",
    "thread_gone.archived": "This match's thread was closed: the match goes on here.",
    "thread_gone.refused": "This match's thread can't be used any more: the match goes on here.",
    # --- pages of a list -----------------------------------------------------------------------
    "page_of": "Page {page} of {pages}",
    # --- post-match analysis -------------------------------------------------------------------
    "analysis.count.one": "{count} analysis",
    "analysis.count.other": "{count} analyses",
    "analysis.queued": "Match #{match_id} is queued for analysis: the report will be in "
    "<#{channel_id}>.",
    "analysis.queued_behind": (
        "Match #{match_id} is queued for analysis ({ahead} ahead of it): the report will be in "
        "<#{channel_id}>."
    ),
    "analysis.progress.queued": "Analysis of match #{match_id}: queued.",
    "analysis.progress.queued_behind": "Analysis of match #{match_id}: queued, {ahead} ahead.",
    "analysis.progress.game": "Analysing match #{match_id}… game {game} of {total}",
    "analysis.failed": (
        "Sorry, the analysis of match #{match_id} failed (this is logged). Try again with "
        "/analyse match:{match_id}."
    ),
    "analysis.done": "Analysis of match #{match_id}: done.",
    "analysis.title": "How did you play? Match #{match_id} ({game})",
    "analysis.player.rating": "**{rating}**",
    "analysis.player.checker_play": "Checker play: {rate} ({unit}, {unforced} unforced)",
    "analysis.player.cube": "Cube: {rate} ({decisions} decisions)",
    "analysis.player.pr": "PR {pr}",
    "analysis.player.errors": "{errors}, {blunders}",
    "analysis.player.luck": "Luck {luck}",
    "analysis.mistake_title": "Mistake {rank}: {name}, game {game}",
    "analysis.mistake_roll": "Roll {dice}. ",
    "analysis.mistake": "{roll}Played {played}; best {best}. Equity lost: {loss}",
    "analysis.no_mistakes": "No mistakes: every decision was the best one.",
    "analysis.by": "Analysed by {evaluator}.",
    "analysis.by_ply": "Analysed by {evaluator} at {ply}-ply.",
    "analysis.chart_title": "Winning chances after every move",
    "analysis.stats.pr": "PR {pr}",
    "analysis.stats.error_rate": "error rate {rate}",
    "analysis.stats.matches.one": "1 match",
    "analysis.stats.matches.other": "{count} matches",
    "analysis.stats": "Analysed: {matches}, average {figure}",
    "analysis.settings.on": "on",
    "analysis.settings.off": "off",
    "analysis.settings": (
        "- Analysis when a match ends: robot matches {robot}, matches between people {human}"
    ),
}
