! Deprecated since malleable 0.2: use malleable_gridmap (names gridmap_*, GRIDMAP_*).
! The 0.1 module name and names, kept for one release (docs/naming.md).
module mall_gridmap
  use malleable_gridmap, only: MALL_GRIDMAP_OK => GRIDMAP_OK,&
       MALL_GRIDMAP_EINVAL => GRIDMAP_EINVAL,&
       MALL_GRIDMAP_EIMPOSSIBLE => GRIDMAP_EIMPOSSIBLE,&
       MALL_GRIDMAP_EINTERNAL => GRIDMAP_EINTERNAL,&
       MALL_GRIDMAP_GLOBAL => GRIDMAP_GLOBAL,&
       MALL_GRIDMAP_LOCAL1 => GRIDMAP_LOCAL1,&
       MALL_GRIDMAP_LOCAL2 => GRIDMAP_LOCAL2,&
       MALL_GRIDMAP_OPTIMAL => GRIDMAP_OPTIMAL,&
       MALL_GRIDMAP_SVD => GRIDMAP_SVD,&
       MALL_GRIDMAP_NATURAL_BLOCK => GRIDMAP_NATURAL_BLOCK,&
       mall_gridmap_choose_topology => gridmap_choose_topology,&
       mall_gridmap_local_expansion => gridmap_local_expansion,&
       mall_gridmap_place => gridmap_place,&
       mall_gridmap_moved_elements => gridmap_moved_elements,&
       mall_gridmap_hetero_map => gridmap_hetero_map,&
       mall_gridmap_error_message => gridmap_error_message
  implicit none
  public
end module mall_gridmap
