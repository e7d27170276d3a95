package contain

// CgroupHome is cgroupHome, for the external tests: the harness's own
// cgroup v2 directory, where its leaves are made.
var CgroupHome = cgroupHome
