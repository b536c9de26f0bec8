package deploy

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Unpack extracts each host's dir/collected/HOST.tgz, fetched by
// down.yml, into dir/collected/HOST (homes/NAME, logs/NAME.log) and
// removes the archive. Entries that would leave that directory, links
// and special files are refused.
func Unpack(dir string, hosts []string) error {
	var errs []error
	for _, h := range hosts {
		tgz := filepath.Join(dir, CollectDir, h+".tgz")
		if err := untar(tgz, filepath.Join(dir, CollectDir, h)); err != nil {
			errs = append(errs, fmt.Errorf("host %s: %w", h, err))
			continue
		}
		os.Remove(tgz)
	}
	return errors.Join(errs...)
}

func untar(path, dest string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		name := filepath.Clean(hdr.Name)
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, ".."+string(filepath.Separator)) {
			return fmt.Errorf("%s: entry %q leaves the directory", path, hdr.Name)
		}
		target := filepath.Join(dest, name)
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(hdr.Mode)&0o755|0o600)
			if err != nil {
				return err
			}
			_, err = io.Copy(out, tr)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}
