package files

// allocation is the running total of the bytes the file system gives the
// entries a tree holds: a regular file's blocks count once per inode
// however many of its names are held (the latest name read gives the
// count), every other entry its own.
type allocation struct {
	total int64
	files map[uint64]*inodeAlloc
}

type inodeAlloc struct {
	names int   // names held
	bytes int64 // as last read
}

func (a *allocation) add(e Entry) {
	if e.Type != TypeFile || e.Ino == 0 {
		a.total += e.Alloc
		return
	}
	f := a.files[e.Ino]
	if f == nil {
		f = &inodeAlloc{}
		a.files[e.Ino] = f
	}
	f.names++
	a.total += e.Alloc - f.bytes
	f.bytes = e.Alloc
}

func (a *allocation) sub(e Entry) {
	if e.Type != TypeFile || e.Ino == 0 {
		a.total -= e.Alloc
		return
	}
	f := a.files[e.Ino]
	if f == nil {
		return
	}
	if f.names--; f.names <= 0 {
		a.total -= f.bytes
		delete(a.files, e.Ino)
	}
}
