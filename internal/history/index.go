package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, "sqlite"
)

// SchemaVersion is the index's schema, kept in its meta table. Open
// rebuilds an index of an older schema from the directories it held and
// refuses one of a newer schema: an index is never read by a cometlab
// that does not know its layout.
// Version 2 added runs.sources.
const SchemaVersion = 2

// BusyTimeout is how long a writer waits for another writer (another
// cometlab) before giving up.
const BusyTimeout = 30 * time.Second

// schema is the index's layout at SchemaVersion. Times are Unix ns (0:
// none); runs.series is SeriesKey.ID, runs.host_fp Host.Fingerprint,
// runs.sources run.json's sources as JSON ("" for none).
const schema = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
  rid INTEGER PRIMARY KEY,
  dir TEXT NOT NULL UNIQUE,
  parent TEXT NOT NULL DEFAULT '',
  kind TEXT NOT NULL,
  id TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL,
  note TEXT NOT NULL DEFAULT '',
  created INTEGER NOT NULL,
  ended INTEGER NOT NULL DEFAULT 0,
  release TEXT NOT NULL DEFAULT '',
  label TEXT NOT NULL DEFAULT '',
  sources TEXT NOT NULL DEFAULT '',
  manifest TEXT NOT NULL DEFAULT '',
  app TEXT NOT NULL DEFAULT '',
  validators INTEGER NOT NULL DEFAULT 0,
  full_nodes INTEGER NOT NULL DEFAULT 0,
  connections INTEGER NOT NULL DEFAULT 0,
  rate REAL NOT NULL DEFAULT 0,
  size INTEGER NOT NULL DEFAULT 0,
  duration_s REAL NOT NULL DEFAULT 0,
  load_detail TEXT NOT NULL DEFAULT '',
  host_name TEXT NOT NULL DEFAULT '',
  host_cores INTEGER NOT NULL DEFAULT 0,
  host_cpu TEXT NOT NULL DEFAULT '',
  host_mem INTEGER NOT NULL DEFAULT 0,
  host_arch TEXT NOT NULL DEFAULT '',
  host_fp TEXT NOT NULL DEFAULT '',
  series TEXT NOT NULL
);
CREATE INDEX runs_created ON runs (created);
CREATE INDEX runs_series ON runs (series, created);
CREATE INDEX runs_parent ON runs (parent);
CREATE TABLE figures (
  rid INTEGER NOT NULL REFERENCES runs (rid) ON DELETE CASCADE,
  figure TEXT NOT NULL,
  value REAL NOT NULL,
  lo REAL,
  hi REAL,
  PRIMARY KEY (rid, figure)
) WITHOUT ROWID;
`

// Index is the history index: one SQLite file in WAL mode, safe to use
// from several goroutines and several processes at once (writers wait
// for each other up to BusyTimeout; readers never wait).
type Index struct {
	db   *sql.DB
	path string
	// Migrated is set when Open found an index of an older schema and
	// rebuilt it from the directories it held.
	Migrated *Migration
}

// Migration is what Open did with an index of an older schema.
type Migration struct {
	From  int   `json:"from"` // its schema version (0: before versions)
	Found Found `json:"found"`
}

// Open opens the index at path, creating it (and its directory) when
// there is none. An index of an older schema is rebuilt from the
// directories it held (Index.Migrated says so); one of a newer schema is
// an error.
func Open(ctx context.Context, path string) (*Index, error) {
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("history index %q: a path with ? or # is not supported", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("history index: %w", err)
	}
	dsn := path + fmt.Sprintf("?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_txlock=immediate",
		BusyTimeout.Milliseconds())
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("history index %s: %w", path, err)
	}
	x := &Index{db: db, path: path}
	old, err := x.migrate(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("history index %s: %w", path, err)
	}
	if old != nil {
		found := Found{}
		for _, dir := range old.dirs {
			f, err := x.Add(ctx, dir)
			if err != nil {
				found.Skipped = append(found.Skipped, Skip{Dir: dir, Reason: err.Error()})
				continue
			}
			found.Runs = append(found.Runs, f.Runs...)
			found.Skipped = append(found.Skipped, f.Skipped...)
		}
		x.Migrated = &Migration{From: old.version, Found: found}
	}
	return x, nil
}

// Path is the index's file.
func (x *Index) Path() string { return x.path }

// Close closes the index.
func (x *Index) Close() error { return x.db.Close() }

// oldIndex is what migrate kept of an index of an older schema: its
// version and the directories it held at the top (not the runs of a
// series, which their parent's directory names again).
type oldIndex struct {
	version int
	dirs    []string
}

// migrate makes the file's schema SchemaVersion, in one write transaction
// (two cometlabs opening a new file at once create it once): a new file
// gets the schema; one of an older schema is emptied and gets it, and its
// directories are returned to be read again.
func (x *Index) migrate(ctx context.Context) (*oldIndex, error) {
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	tables, err := tableNames(ctx, tx)
	if err != nil {
		return nil, err
	}
	version := 0
	if slices.Contains(tables, "meta") {
		var v string
		err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("read its schema version: %w", err)
		}
		if _, err := fmt.Sscan(v, &version); err != nil && v != "" {
			return nil, fmt.Errorf("schema version %q: %w", v, err)
		}
	}
	switch {
	case version == SchemaVersion:
		return nil, nil
	case version > SchemaVersion:
		return nil, fmt.Errorf("the index has schema version %d, newer than this cometlab's %d: use a newer cometlab, or another --index", version, SchemaVersion)
	}
	var old *oldIndex
	if len(tables) > 0 {
		old = &oldIndex{version: version, dirs: oldDirs(ctx, tx)}
		if _, err := tx.ExecContext(ctx, `PRAGMA defer_foreign_keys = ON`); err != nil {
			return nil, err
		}
		for _, t := range tables {
			if _, err := tx.ExecContext(ctx, `DROP TABLE "`+strings.ReplaceAll(t, `"`, `""`)+`"`); err != nil {
				return nil, fmt.Errorf("drop the old table %s: %w", t, err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, schema); err != nil {
		return nil, fmt.Errorf("create the schema: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('schema_version', ?)`, fmt.Sprint(SchemaVersion)); err != nil {
		return nil, err
	}
	return old, tx.Commit()
}

// tableNames are the file's tables (SQLite's own left out).
func tableNames(ctx context.Context, tx *sql.Tx) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

// oldDirs are the top-level directories of an older index's runs table,
// as far as it can be read: every schema so far has runs.dir; one with a
// parent column names the series' runs through their parent.
func oldDirs(ctx context.Context, tx *sql.Tx) []string {
	for _, q := range []string{`SELECT dir FROM runs WHERE parent = '' ORDER BY dir`, `SELECT dir FROM runs ORDER BY dir`} {
		rows, err := tx.QueryContext(ctx, q)
		if err != nil {
			continue
		}
		var dirs []string
		for rows.Next() {
			var d string
			if rows.Scan(&d) == nil && d != "" {
				dirs = append(dirs, d)
			}
		}
		err = rows.Err()
		rows.Close()
		if err == nil {
			return dirs
		}
	}
	return nil
}

// Add reads the directory dir (Read) and puts what it found in the index,
// replacing what the index held of it (a series' runs included).
func (x *Index) Add(ctx context.Context, dir string) (Found, error) {
	f, err := Read(dir)
	if err != nil {
		return Found{}, err
	}
	return f, x.Put(ctx, f.Runs)
}

// Put stores runs in one transaction. A run replaces the run of the same
// Dir; a run without a Parent also removes the runs whose Parent it is
// (a sweep read again brings its cells again).
func (x *Index) Put(ctx context.Context, runs []Run) error {
	return x.write(ctx, func(tx *sql.Tx) error {
		return putRuns(ctx, tx, runs)
	})
}

// Rebuild empties the index and fills it from the directories under roots
// (Walk), in one transaction: readers see the old index or the new one.
// It returns what was indexed and what was skipped, and why.
func (x *Index) Rebuild(ctx context.Context, roots []string) (Found, error) {
	f := Walk(roots)
	err := x.write(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{`DELETE FROM figures`, `DELETE FROM runs`} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return putRuns(ctx, tx, f.Runs)
	})
	return f, err
}

// write runs fn in a write transaction (BEGIN IMMEDIATE: it waits for
// other writers, up to BusyTimeout, before it reads anything).
func (x *Index) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("history index %s: %w", x.path, err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return fmt.Errorf("history index %s: %w", x.path, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('generation', '1')
  ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`); err != nil {
		return fmt.Errorf("history index %s: %w", x.path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("history index %s: %w", x.path, err)
	}
	return nil
}

// Generation counts the index's writes (Add, Put, Rebuild, by any
// process): what a reader computed from the index is still current while
// the generation it read it at is. An index never written is at 0.
func (x *Index) Generation(ctx context.Context) (int64, error) {
	var g int64
	err := x.db.QueryRowContext(ctx, `SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'generation'`).Scan(&g)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("history index %s: %w", x.path, err)
	}
	return g, nil
}

// Check runs SQLite's integrity check and returns its complaints as the
// error.
func (x *Index) Check(ctx context.Context) error {
	rows, err := x.db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var bad []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		if s != "ok" {
			bad = append(bad, s)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(bad) > 0 {
		return fmt.Errorf("history index %s is corrupt: %s", x.path, strings.Join(bad, "; "))
	}
	return nil
}
