package deploy

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// HomesArchive is the name of the archive of a host's node homes that
// Write packs beside the inventory and deploy.yml unpacks on the host:
// one transfer per host, where copying the homes file by file took one
// Ansible module run per file and host.
func HomesArchive(host string) string { return "homes-" + host + ".tgz" }

// packHomes writes the homes of nodes (homes/NAME: its directories and
// regular files, modes kept) into the gzipped tar dest, each under NAME/.
func packHomes(homes string, nodes []Node, dest string) (err error) {
	f, err := os.Create(dest)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for _, n := range nodes {
		if err := addTree(tw, homes, n.Name); err != nil {
			return fmt.Errorf("pack the home of %s: %w", n.Name, err)
		}
	}
	return errors.Join(tw.Close(), gz.Close())
}

// addTree adds base/root and everything under it to tw, named root/….
func addTree(tw *tar.Writer, base, root string) error {
	return filepath.WalkDir(filepath.Join(base, root), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.IsDir() && !info.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file", path)
		}
		rel, err := filepath.Rel(base, path)
		if err != nil {
			return err
		}
		hdr, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		hdr.Name = filepath.ToSlash(rel)
		if info.IsDir() {
			hdr.Name += "/"
		}
		hdr.Uname, hdr.Gname, hdr.Uid, hdr.Gid = "", "", 0, 0
		if err := tw.WriteHeader(hdr); err != nil || info.IsDir() {
			return err
		}
		src, err := os.Open(path)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(tw, src)
		return err
	})
}

// homesArchivePath is where Write puts host's homes archive in dir.
func homesArchivePath(dir, host string) string { return filepath.Join(dir, HomesArchive(host)) }
