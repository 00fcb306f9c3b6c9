package main

import (
	"io/fs"
	"os"
	"runtime"
)

// openFile is a file of the deployment its group or other users may use.
type openFile struct {
	path, holds string
	mode        fs.FileMode
}

// filesOpenToOthers lists the deployment's secret files that the file's
// group or other users may read or write: the KEK, and the SQLite
// database with its -wal and -shm (sessions, sealed keys, the data).
// dbPath is "" on PostgreSQL; a file that is not there is not listed.
// Windows has no such mode bits: nothing is listed there.
func filesOpenToOthers(dbPath, kekPath string) []openFile {
	if runtime.GOOS == "windows" {
		return nil
	}
	type file struct{ path, holds string }
	files := []file{{kekPath, "the key-encryption key"}}
	if dbPath != "" {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			files = append(files, file{dbPath + suffix, "the database's sessions and sealed keys"})
		}
	}
	var open []openFile
	for _, f := range files {
		if st, err := os.Stat(f.path); err == nil && st.Mode().Perm()&0o077 != 0 {
			open = append(open, openFile{path: f.path, holds: f.holds, mode: st.Mode().Perm()})
		}
	}
	return open
}
