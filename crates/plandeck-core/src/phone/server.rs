//! The phone page over HTTPS (filled in next).
