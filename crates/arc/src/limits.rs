//! Version-aware ARC limits (`c_min`, `c_max`, `arc_sys_free`, dnode limit).
//! Being written.
