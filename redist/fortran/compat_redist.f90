! Deprecated since malleable 0.2: use malleable_redist (same names).
! The 0.1 module name, kept for one release (docs/naming.md).
module redist
  use malleable_redist
  implicit none
  public
end module redist
