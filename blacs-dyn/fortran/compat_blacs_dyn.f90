! Deprecated since malleable 0.2: use malleable_blacs_dyn (names blacs_dyn_*, BLACS_DYN_*).
! The 0.1 module name and names, kept for one release (docs/naming.md).
module blacs_dyn
  use malleable_blacs_dyn, only: BDYN_OK => BLACS_DYN_OK,&
       BDYN_ERR_ARG => BLACS_DYN_ERR_ARG,&
       BDYN_ERR_SCHEMA => BLACS_DYN_ERR_SCHEMA,&
       BDYN_ERR_SPAWN => BLACS_DYN_ERR_SPAWN,&
       BDYN_ERR_STATE => BLACS_DYN_ERR_STATE,&
       BDYN_ERR_MPI => BLACS_DYN_ERR_MPI,&
       BDYN_ERR_TIMEOUT => BLACS_DYN_ERR_TIMEOUT,&
       BDYN_STAY => BLACS_DYN_STAY,&
       BDYN_EXIT => BLACS_DYN_EXIT,&
       BDYN_PARK => BLACS_DYN_PARK,&
       bdyn_c_string => blacs_dyn_c_string,&
       bdyn_rank => blacs_dyn_rank,&
       bdyn_size => blacs_dyn_size,&
       bdyn_world_f => blacs_dyn_world_f,&
       bdyn_depth => blacs_dyn_depth,&
       bdyn_joined_level => blacs_dyn_joined_level,&
       bdyn_is_new => blacs_dyn_is_new,&
       bdyn_clear_new => blacs_dyn_clear_new,&
       bdyn_leave => blacs_dyn_leave,&
       bdyn_leaving => blacs_dyn_leaving,&
       bdyn_shrink_to_level => blacs_dyn_shrink_to_level,&
       bdyn_level_size => blacs_dyn_level_size,&
       bdyn_level_grid => blacs_dyn_level_grid,&
       bdyn_process_counts => blacs_dyn_process_counts,&
       bdyn_share_state => blacs_dyn_share_state,&
       bdyn_expand_schema => blacs_dyn_expand_schema,&
       bdyn_expand => blacs_dyn_expand,&
       bdyn_shrink_to_ranks => blacs_dyn_shrink_to_ranks,&
       bdyn_last_error => blacs_dyn_last_error
  implicit none
  public
end module blacs_dyn
