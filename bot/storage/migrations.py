"""The SQLite schema's migrations: the steps, in order, and how one is applied.

The database's ``PRAGMA user_version`` is the number of steps applied. :class:`SqliteStore`
(``bot/storage/sqlite.py``) applies the missing ones when it connects, each in its own
transaction, and refuses a database from a newer tablebot (a version above ``len(MIGRATIONS)``).
"""

from __future__ import annotations

import sqlite3

# Step 8's trigger body, for a match that finishes and for one inserted finished: add it to
# each seat's record of its (game, length), with the seat's rating (NULL without a row).
_COUNT_FINISHED = """
BEGIN
        INSERT INTO length_records (guild_id, game, length, user_id, rating, played, won, lost,
                                    drawn, points_won, points_lost)
        SELECT NEW.guild_id, NEW.game, NEW.length, seat.user_id,
               (SELECT r.rating FROM ratings AS r WHERE r.guild_id = NEW.guild_id
                    AND r.game = NEW.game AND r.user_id = seat.user_id),
               1, NEW.winner_seat IS seat.n, NEW.winner_seat IS 1 - seat.n,
               NEW.winner_seat IS NULL, seat.pw, seat.pl
        FROM (SELECT 0 AS n, NEW.player0_id AS user_id, NEW.score0 AS pw, NEW.score1 AS pl
              UNION ALL
              SELECT 1, NEW.player1_id, NEW.score1, NEW.score0) AS seat
        WHERE true
        ON CONFLICT (guild_id, game, length, user_id) DO UPDATE SET
            played = played + 1, won = won + excluded.won, lost = lost + excluded.lost,
            drawn = drawn + excluded.drawn, points_won = points_won + excluded.points_won,
            points_lost = points_lost + excluded.points_lost;
END;
"""

# Append-only: never edit a released step; add a new one. Step n (as its comment and the docs
# number it) is MIGRATIONS[n - 1] and brings user_version to n.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE guild_settings (
        guild_id INTEGER PRIMARY KEY,
        data TEXT NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE TABLE challenges (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        game TEXT NOT NULL,
        rules TEXT NOT NULL,
        challenger_id INTEGER NOT NULL,
        challenger_name TEXT NOT NULL,
        opponent_id INTEGER,
        opponent_name TEXT,
        status TEXT NOT NULL,
        created_at REAL NOT NULL,
        expires_at REAL NOT NULL,
        match_id INTEGER,
        message_id INTEGER
    );
    CREATE INDEX challenges_open ON challenges (status, expires_at);
    CREATE TABLE matches (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        thread_id INTEGER,
        board_message_id INTEGER,
        challenge_id INTEGER REFERENCES challenges (id),
        game TEXT NOT NULL,
        length INTEGER NOT NULL,
        rules TEXT NOT NULL,
        player0_id INTEGER NOT NULL,
        player0_name TEXT NOT NULL,
        player1_id INTEGER NOT NULL,
        player1_name TEXT NOT NULL,
        colour0 TEXT NOT NULL,
        colour1 TEXT NOT NULL,
        status TEXT NOT NULL,
        score0 REAL NOT NULL DEFAULT 0,
        score1 REAL NOT NULL DEFAULT 0,
        winner_seat INTEGER,
        dice_commitment TEXT NOT NULL,
        dice_seed BLOB NOT NULL,
        seed_revealed INTEGER NOT NULL DEFAULT 0,
        dice_counter INTEGER NOT NULL DEFAULT 0,
        rating_changes TEXT,
        created_at REAL NOT NULL,
        last_action_at REAL NOT NULL,
        finished_at REAL,
        reminded_version INTEGER,
        version INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX matches_status ON matches (status);
    CREATE INDEX matches_guild_players ON matches (guild_id, player0_id, player1_id);
    CREATE INDEX matches_thread ON matches (thread_id);
    CREATE TABLE events (
        match_id INTEGER NOT NULL REFERENCES matches (id),
        seq INTEGER NOT NULL,
        at REAL NOT NULL,
        actor INTEGER,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL,
        PRIMARY KEY (match_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE snapshots (
        match_id INTEGER PRIMARY KEY REFERENCES matches (id),
        version INTEGER NOT NULL,
        data TEXT NOT NULL
    );
    CREATE TABLE game_results (
        match_id INTEGER NOT NULL REFERENCES matches (id),
        game_number INTEGER NOT NULL,
        winner_seat INTEGER,
        kind TEXT NOT NULL,
        points REAL NOT NULL,
        cube INTEGER NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (match_id, game_number)
    ) WITHOUT ROWID;
    CREATE TABLE ratings (
        guild_id INTEGER NOT NULL,
        game TEXT NOT NULL,
        user_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        rating REAL NOT NULL DEFAULT 1500,
        experience INTEGER NOT NULL DEFAULT 0,
        played INTEGER NOT NULL DEFAULT 0,
        won INTEGER NOT NULL DEFAULT 0,
        lost INTEGER NOT NULL DEFAULT 0,
        drawn INTEGER NOT NULL DEFAULT 0,
        points_won REAL NOT NULL DEFAULT 0,
        points_lost REAL NOT NULL DEFAULT 0,
        gammons_for INTEGER NOT NULL DEFAULT 0,
        gammons_against INTEGER NOT NULL DEFAULT 0,
        backgammons_for INTEGER NOT NULL DEFAULT 0,
        backgammons_against INTEGER NOT NULL DEFAULT 0,
        nannons_for INTEGER NOT NULL DEFAULT 0,
        nannons_against INTEGER NOT NULL DEFAULT 0,
        nannons_shouted INTEGER NOT NULL DEFAULT 0,
        streak INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (guild_id, game, user_id)
    ) WITHOUT ROWID;
    CREATE TABLE shouts (
        match_id INTEGER NOT NULL REFERENCES matches (id),
        game_number INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (match_id, game_number)
    ) WITHOUT ROWID;
    """,
    # 2: the robot opponent. Which seat the robot plays and at which level (both NULL in a
    # match between people), and each player's record against each robot level, per game
    # (kept whether or not robot matches are rated).
    """
    ALTER TABLE matches ADD COLUMN robot_seat INTEGER;
    ALTER TABLE matches ADD COLUMN robot_level INTEGER;
    CREATE TABLE robot_records (
        guild_id INTEGER NOT NULL,
        game TEXT NOT NULL,
        user_id INTEGER NOT NULL,
        level INTEGER NOT NULL,
        name TEXT NOT NULL,
        played INTEGER NOT NULL DEFAULT 0,
        won INTEGER NOT NULL DEFAULT 0,
        lost INTEGER NOT NULL DEFAULT 0,
        drawn INTEGER NOT NULL DEFAULT 0,
        points_won REAL NOT NULL DEFAULT 0,
        points_lost REAL NOT NULL DEFAULT 0,
        PRIMARY KEY (guild_id, game, user_id, level)
    ) WITHOUT ROWID;
    """,
    # 3: post-match analysis. One row per analysed match: its state (queued, running, done,
    # failed), the games done so far, the message that shows it, the result as JSON and each
    # seat's error rate and PR (for /stats). Queued and running rows are picked up again at
    # start-up.
    """
    CREATE TABLE analyses (
        match_id INTEGER PRIMARY KEY REFERENCES matches (id),
        status TEXT NOT NULL,
        ply INTEGER NOT NULL,
        requester_id INTEGER,
        requested_at REAL NOT NULL,
        started_at REAL,
        finished_at REAL,
        games_done INTEGER NOT NULL DEFAULT 0,
        games_total INTEGER,
        message_id INTEGER,
        result TEXT,
        error TEXT,
        error_rate0 REAL,
        error_rate1 REAL,
        pr0 REAL,
        pr1 REAL
    );
    CREATE INDEX analyses_status ON analyses (status, requested_at);
    """,
    # 4: tournaments. A tournament (its rules, the round it is on and a version that every
    # change compares and sets, so two processes never pair a round twice), its entrants, and
    # each round's pairings: the challenge its match starts from (the match is found through
    # it) and the result once decided (by the match, a bye, a forfeit or the organiser).
    """
    CREATE TABLE tournaments (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        organiser_id INTEGER NOT NULL,
        organiser_name TEXT NOT NULL,
        game TEXT NOT NULL,
        format TEXT NOT NULL,
        rules TEXT NOT NULL,
        max_players INTEGER,
        rounds INTEGER,
        round_days REAL NOT NULL,
        starts_at REAL,
        robot_level INTEGER,
        status TEXT NOT NULL,
        round INTEGER NOT NULL DEFAULT 0,
        version INTEGER NOT NULL DEFAULT 0,
        round_deadline REAL,
        reported_round INTEGER NOT NULL DEFAULT 0,
        message_id INTEGER,
        winner_id INTEGER,
        created_at REAL NOT NULL,
        finished_at REAL
    );
    CREATE INDEX tournaments_guild ON tournaments (guild_id, status);
    CREATE TABLE tournament_entries (
        tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
        user_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        rating REAL NOT NULL,
        robot INTEGER NOT NULL DEFAULT 0,
        joined_at REAL NOT NULL,
        withdrawn_at REAL,
        PRIMARY KEY (tournament_id, user_id)
    );
    CREATE TABLE tournament_pairings (
        tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
        round INTEGER NOT NULL,
        board INTEGER NOT NULL,
        first_id INTEGER NOT NULL,
        second_id INTEGER,
        challenge_id INTEGER REFERENCES challenges (id),
        points_first REAL,
        decided TEXT,
        PRIMARY KEY (tournament_id, round, board)
    );
    CREATE INDEX tournament_pairings_challenge ON tournament_pairings (challenge_id);
    """,
    # 5: puzzles mined from analysed decisions. A puzzle keeps where it comes from (the match,
    # the action, the seat and its player, for opting out and never serving a member their own
    # game), the board (as JSON: what the picture needs), the move played, the answer key (JSON,
    # best first), a key that finds the same position twice, its Glicko-2 rating and counts,
    # and when and where the daily post showed it. One attempt per member per puzzle; each
    # member's puzzle rating per guild; the members who keep their games out of puzzles; when
    # an analysis was mined (NULL: not yet, so a start-up mines it, the analyses before too).
    """
    CREATE TABLE puzzles (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id INTEGER NOT NULL,
        game TEXT NOT NULL,
        kind TEXT NOT NULL,
        match_id INTEGER NOT NULL REFERENCES matches (id),
        action_index INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        player_id INTEGER NOT NULL,
        board TEXT NOT NULL,
        played TEXT NOT NULL,
        answer_key TEXT NOT NULL,
        position_key TEXT NOT NULL,
        rating REAL NOT NULL DEFAULT 1500,
        deviation REAL NOT NULL DEFAULT 350,
        volatility REAL NOT NULL DEFAULT 0.06,
        attempts INTEGER NOT NULL DEFAULT 0,
        solved INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        posted_at REAL,
        post_channel_id INTEGER,
        post_message_id INTEGER,
        revealed_at REAL
    );
    CREATE UNIQUE INDEX puzzles_position ON puzzles (guild_id, game, position_key);
    CREATE INDEX puzzles_posted ON puzzles (guild_id, posted_at);
    CREATE TABLE puzzle_attempts (
        puzzle_id INTEGER NOT NULL REFERENCES puzzles (id),
        user_id INTEGER NOT NULL,
        choice TEXT NOT NULL,
        correct INTEGER NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (puzzle_id, user_id)
    );
    CREATE TABLE puzzle_ratings (
        guild_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        rating REAL NOT NULL DEFAULT 1500,
        deviation REAL NOT NULL DEFAULT 350,
        volatility REAL NOT NULL DEFAULT 0.06,
        attempts INTEGER NOT NULL DEFAULT 0,
        solved INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (guild_id, user_id)
    );
    CREATE TABLE puzzle_opt_outs (
        guild_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (guild_id, user_id)
    );
    ALTER TABLE analyses ADD COLUMN puzzles_mined_at REAL;
    """,
    # 6: the language a member chose with /language (a catalogue's locale code), theirs in
    # every server; no row: their Discord client's language.
    """
    CREATE TABLE member_languages (
        user_id INTEGER PRIMARY KEY,
        locale TEXT NOT NULL,
        updated_at REAL NOT NULL
    ) WITHOUT ROWID;
    """,
    # 7: puzzles from robot self-play have no match: puzzles.match_id may be NULL. SQLite cannot
    # drop a NOT NULL: the table is built again (and puzzle_attempts, whose foreign key must
    # follow the new table; renaming puzzles_new rewrites it), rows and ids kept.
    """
    CREATE TABLE puzzles_new (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id INTEGER NOT NULL,
        game TEXT NOT NULL,
        kind TEXT NOT NULL,
        match_id INTEGER REFERENCES matches (id),
        action_index INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        player_id INTEGER NOT NULL,
        board TEXT NOT NULL,
        played TEXT NOT NULL,
        answer_key TEXT NOT NULL,
        position_key TEXT NOT NULL,
        rating REAL NOT NULL DEFAULT 1500,
        deviation REAL NOT NULL DEFAULT 350,
        volatility REAL NOT NULL DEFAULT 0.06,
        attempts INTEGER NOT NULL DEFAULT 0,
        solved INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        posted_at REAL,
        post_channel_id INTEGER,
        post_message_id INTEGER,
        revealed_at REAL
    );
    INSERT INTO puzzles_new SELECT * FROM puzzles;
    CREATE TABLE puzzle_attempts_new (
        puzzle_id INTEGER NOT NULL REFERENCES puzzles_new (id),
        user_id INTEGER NOT NULL,
        choice TEXT NOT NULL,
        correct INTEGER NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (puzzle_id, user_id)
    );
    INSERT INTO puzzle_attempts_new SELECT * FROM puzzle_attempts;
    DROP TABLE puzzle_attempts;
    DROP TABLE puzzles;
    ALTER TABLE puzzles_new RENAME TO puzzles;
    ALTER TABLE puzzle_attempts_new RENAME TO puzzle_attempts;
    CREATE UNIQUE INDEX puzzles_position ON puzzles (guild_id, game, position_key);
    CREATE INDEX puzzles_posted ON puzzles (guild_id, posted_at);
    """,
    # 8: a big server's reads. Each seat's matches by id (a member's history and analysed
    # averages read one index range instead of the server's history), each seat's active
    # matches (/games), a tournament's matches by challenge (its standings), the rating and puzzle
    # boards in their order (a page, not every member sorted), and each
    # member's record per (game, length) of finished matches, kept by triggers as a match
    # finishes and as a rating changes (the length leaderboard reads one page of an index
    # instead of counting the history); filled from the history here.
    """
    CREATE INDEX matches_seat0 ON matches (guild_id, player0_id, id);
    CREATE INDEX matches_seat1 ON matches (guild_id, player1_id, id);
    CREATE INDEX matches_active_seat0 ON matches (guild_id, player0_id) WHERE status = 'active';
    CREATE INDEX matches_active_seat1 ON matches (guild_id, player1_id) WHERE status = 'active';
    CREATE INDEX matches_challenge ON matches (challenge_id);
    CREATE INDEX ratings_board
        ON ratings (guild_id, game, rating DESC, won DESC, user_id, played)
        WHERE played > 0;
    CREATE INDEX puzzle_ratings_board
        ON puzzle_ratings (guild_id, rating DESC, solved DESC, user_id, attempts)
        WHERE attempts > 0;
    CREATE TABLE length_records (
        guild_id INTEGER NOT NULL,
        game TEXT NOT NULL,
        length INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        rating REAL,
        played INTEGER NOT NULL DEFAULT 0,
        won INTEGER NOT NULL DEFAULT 0,
        lost INTEGER NOT NULL DEFAULT 0,
        drawn INTEGER NOT NULL DEFAULT 0,
        points_won REAL NOT NULL DEFAULT 0,
        points_lost REAL NOT NULL DEFAULT 0,
        PRIMARY KEY (guild_id, game, length, user_id)
    ) WITHOUT ROWID;
    CREATE INDEX length_records_board
        ON length_records (guild_id, game, length, rating DESC, won DESC, user_id);
    INSERT INTO length_records
        (guild_id, game, length, user_id, played, won, lost, drawn, points_won, points_lost)
    SELECT guild_id, game, length, user_id, count(*), sum(won), sum(lost), sum(drawn),
           sum(pw), sum(pl)
    FROM (
        SELECT guild_id, game, length, player0_id AS user_id, winner_seat IS 0 AS won,
               winner_seat IS 1 AS lost, winner_seat IS NULL AS drawn, score0 AS pw,
               score1 AS pl
        FROM matches
        WHERE status = 'finished' AND (robot_seat IS NULL OR rating_changes IS NOT NULL)
        UNION ALL
        SELECT guild_id, game, length, player1_id, winner_seat IS 1, winner_seat IS 0,
               winner_seat IS NULL, score1, score0
        FROM matches
        WHERE status = 'finished' AND (robot_seat IS NULL OR rating_changes IS NOT NULL)
    )
    GROUP BY guild_id, game, length, user_id;
    UPDATE length_records SET rating = (
        SELECT r.rating FROM ratings AS r WHERE r.guild_id = length_records.guild_id
            AND r.game = length_records.game AND r.user_id = length_records.user_id
    );
    CREATE TRIGGER length_records_finish AFTER UPDATE OF status ON matches
    WHEN NEW.status = 'finished' AND OLD.status IS NOT 'finished'
        AND (NEW.robot_seat IS NULL OR NEW.rating_changes IS NOT NULL)
    {_COUNT_FINISHED}
    CREATE TRIGGER length_records_finished AFTER INSERT ON matches
    WHEN NEW.status = 'finished' AND (NEW.robot_seat IS NULL OR NEW.rating_changes IS NOT NULL)
    {_COUNT_FINISHED}
    CREATE TRIGGER length_records_rated AFTER INSERT ON ratings
    BEGIN
        UPDATE length_records SET rating = NEW.rating
        WHERE guild_id = NEW.guild_id AND game = NEW.game AND user_id = NEW.user_id;
    END;
    CREATE TRIGGER length_records_rerated AFTER UPDATE OF rating ON ratings
    BEGIN
        UPDATE length_records SET rating = NEW.rating
        WHERE guild_id = NEW.guild_id AND game = NEW.game AND user_id = NEW.user_id;
    END;
    CREATE TRIGGER length_records_unrated AFTER DELETE ON ratings
    BEGIN
        UPDATE length_records SET rating = NULL
        WHERE guild_id = OLD.guild_id AND game = OLD.game AND user_id = OLD.user_id;
    END;
    """.replace("{_COUNT_FINISHED}", _COUNT_FINISHED.strip()),
    # Step 9 (issue 34): one clock for every deadline. A row per (kind, key) armed; a process
    # claims a due one with a lease (claimed_until), and marks it fired when its handler ran.
    # A challenge's expiry is armed by a trigger, in the transaction that inserts the challenge.
    """
    CREATE TABLE deadlines (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        key TEXT NOT NULL,
        due_at REAL NOT NULL,
        claimed_by TEXT,
        claimed_until REAL,
        fired_at REAL,
        UNIQUE (kind, key)
    );
    CREATE INDEX deadlines_due ON deadlines (due_at) WHERE fired_at IS NULL;
    INSERT INTO deadlines (kind, key, due_at)
    SELECT 'challenge.expiry', CAST(id AS TEXT), expires_at FROM challenges
    WHERE status = 'open';
    CREATE TRIGGER challenge_expiry_armed AFTER INSERT ON challenges
    WHEN NEW.status = 'open'
    BEGIN
        INSERT INTO deadlines (kind, key, due_at)
        VALUES ('challenge.expiry', CAST(NEW.id AS TEXT), NEW.expires_at)
        ON CONFLICT (kind, key) DO UPDATE SET due_at = excluded.due_at, claimed_by = NULL,
            claimed_until = NULL, fired_at = NULL;
    END;
    """,
)


def apply_step(step: int, db: sqlite3.Connection) -> None:
    """Run step ``step`` (0-based) and set ``user_version`` to ``step + 1``; inside a
    transaction the caller opened, which rolls the whole step back if a statement fails."""
    statement = ""
    for piece in MIGRATIONS[step].split(";"):
        # A trigger's body holds semicolons: a statement ends where SQLite says it is whole.
        statement += piece + ";"
        if sqlite3.complete_statement(statement):
            if statement.strip(" \n;"):
                db.execute(statement)
            statement = ""
    # PRAGMA takes no parameters; step is an int we control.
    db.execute(f"PRAGMA user_version = {step + 1}")
