package files

import _ "github.com/fsnotify/fsnotify"
