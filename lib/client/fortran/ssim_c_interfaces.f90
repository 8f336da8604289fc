! The C API (lib/client/c/ssim_client.h) as seen from Fortran. Internal to the ssim_client
! module: programs use ssim_client, not this.
module ssim_c_interfaces
  use, intrinsic :: iso_c_binding
  implicit none
  public

  interface
    function c_strlen(s) bind(c, name="strlen") result(n)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: n
    end function

    function ssim_last_error() bind(c) result(p)
      import :: c_ptr
      type(c_ptr) :: p
    end function

    function ssim_client_new(out) bind(c) result(s)
      import :: c_ptr, c_int
      type(c_ptr), intent(out) :: out
      integer(c_int) :: s
    end function

    function ssim_client_connect(address, password, out) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      character(kind=c_char), intent(in) :: address(*), password(*)
      type(c_ptr), intent(out) :: out
      integer(c_int) :: s
    end function

    subroutine ssim_client_free(c) bind(c)
      import :: c_ptr
      type(c_ptr), value :: c
    end subroutine

    ! put_tensor, dataset_add_tensor, unpack_tensor, dataset_unpack_tensor, tensor_unpack:
    ! (handle, name, data, dims, ndims, dtype, layout)
    function ssim_put_tensor(c, name, data, dims, ndims, dtype, layout) bind(c) result(s)
      import :: c_ptr, c_int, c_char, c_int64_t, c_size_t
      type(c_ptr), value :: c, data
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_size_t), value :: ndims
      integer(c_int), value :: dtype, layout
      integer(c_int) :: s
    end function

    function ssim_unpack_tensor(c, name, data, dims, ndims, dtype, layout) bind(c) result(s)
      import :: c_ptr, c_int, c_char, c_int64_t, c_size_t
      type(c_ptr), value :: c, data
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_size_t), value :: ndims
      integer(c_int), value :: dtype, layout
      integer(c_int) :: s
    end function

    function ssim_dataset_add_tensor(d, name, data, dims, ndims, dtype, layout) bind(c) result(s)
      import :: c_ptr, c_int, c_char, c_int64_t, c_size_t
      type(c_ptr), value :: d, data
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_size_t), value :: ndims
      integer(c_int), value :: dtype, layout
      integer(c_int) :: s
    end function

    function ssim_dataset_unpack_tensor(d, name, data, dims, ndims, dtype, layout) bind(c) result(s)
      import :: c_ptr, c_int, c_char, c_int64_t, c_size_t
      type(c_ptr), value :: d, data
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_size_t), value :: ndims
      integer(c_int), value :: dtype, layout
      integer(c_int) :: s
    end function

    function ssim_get_tensor(c, name, out) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*)
      type(c_ptr), intent(out) :: out
      integer(c_int) :: s
    end function

    function ssim_tensor_dtype(t) bind(c) result(dtype)
      import :: c_ptr, c_int
      type(c_ptr), value :: t
      integer(c_int) :: dtype
    end function

    function ssim_tensor_ndims(t) bind(c) result(n)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: t
      integer(c_size_t) :: n
    end function

    function ssim_tensor_dims(t) bind(c) result(p)
      import :: c_ptr
      type(c_ptr), value :: t
      type(c_ptr) :: p
    end function

    function ssim_tensor_unpack(t, data, dims, ndims, dtype, layout) bind(c) result(s)
      import :: c_ptr, c_int, c_int64_t, c_size_t
      type(c_ptr), value :: t, data
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_size_t), value :: ndims
      integer(c_int), value :: dtype, layout
      integer(c_int) :: s
    end function

    subroutine ssim_tensor_free(t) bind(c)
      import :: c_ptr
      type(c_ptr), value :: t
    end subroutine

    ! Training metrics: step, epoch < 0 for none; phase "" for none.
    function ssim_metric_log(name, value, step, epoch, phase) bind(c) result(s)
      import :: c_int, c_char, c_double, c_long_long
      character(kind=c_char), intent(in) :: name(*), phase(*)
      real(c_double), value :: value
      integer(c_long_long), value :: step, epoch
      integer(c_int) :: s
    end function
    function ssim_metric_flush() bind(c) result(s)
      import :: c_int
      integer(c_int) :: s
    end function

    ! (handle, name) -> status: delete_tensor, delete_dataset, delete_list, set_data_source
    function ssim_delete_tensor(c, name) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: s
    end function
    function ssim_delete_dataset(c, name) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: s
    end function
    function ssim_delete_list(c, name) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: s
    end function
    function ssim_set_data_source(c, name) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: s
    end function

    ! (handle, source, destination) -> status
    function ssim_copy_tensor(c, a, b) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: a(*), b(*)
      integer(c_int) :: s
    end function
    function ssim_rename_tensor(c, a, b) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: a(*), b(*)
      integer(c_int) :: s
    end function
    function ssim_copy_dataset(c, a, b) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: a(*), b(*)
      integer(c_int) :: s
    end function
    function ssim_rename_dataset(c, a, b) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: a(*), b(*)
      integer(c_int) :: s
    end function
    function ssim_copy_list(c, a, b) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: a(*), b(*)
      integer(c_int) :: s
    end function
    function ssim_rename_list(c, a, b) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: a(*), b(*)
      integer(c_int) :: s
    end function

    ! (handle, name, flag) -> status: the exists checks
    function ssim_tensor_exists(c, name, flag) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), intent(out) :: flag
      integer(c_int) :: s
    end function
    function ssim_dataset_exists(c, name, flag) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), intent(out) :: flag
      integer(c_int) :: s
    end function
    function ssim_key_exists(c, name, flag) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), intent(out) :: flag
      integer(c_int) :: s
    end function

    ! (handle, name, interval_ms, tries, flag) -> status: the polls
    function ssim_poll_tensor(c, name, interval, tries, flag) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), value :: interval, tries
      integer(c_int), intent(out) :: flag
      integer(c_int) :: s
    end function
    function ssim_poll_dataset(c, name, interval, tries, flag) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), value :: interval, tries
      integer(c_int), intent(out) :: flag
      integer(c_int) :: s
    end function
    function ssim_poll_key(c, name, interval, tries, flag) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), value :: interval, tries
      integer(c_int), intent(out) :: flag
      integer(c_int) :: s
    end function
    function ssim_poll_list_length_gte(c, name, length, interval, tries, flag) bind(c) result(s)
      import :: c_ptr, c_int, c_char, c_int64_t
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int64_t), value :: length
      integer(c_int), value :: interval, tries
      integer(c_int), intent(out) :: flag
      integer(c_int) :: s
    end function
    function ssim_poll_list_length_lte(c, name, length, interval, tries, flag) bind(c) result(s)
      import :: c_ptr, c_int, c_char, c_int64_t
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int64_t), value :: length
      integer(c_int), value :: interval, tries
      integer(c_int), intent(out) :: flag
      integer(c_int) :: s
    end function

    function ssim_get_list_length(c, name, length) bind(c) result(s)
      import :: c_ptr, c_int, c_char, c_int64_t
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int64_t), intent(out) :: length
      integer(c_int) :: s
    end function

    ! (handle, on) -> status: the prefix switches
    function ssim_use_tensor_ensemble_prefix(c, on) bind(c) result(s)
      import :: c_ptr, c_int
      type(c_ptr), value :: c
      integer(c_int), value :: on
      integer(c_int) :: s
    end function
    function ssim_use_dataset_ensemble_prefix(c, on) bind(c) result(s)
      import :: c_ptr, c_int
      type(c_ptr), value :: c
      integer(c_int), value :: on
      integer(c_int) :: s
    end function
    function ssim_use_list_ensemble_prefix(c, on) bind(c) result(s)
      import :: c_ptr, c_int
      type(c_ptr), value :: c
      integer(c_int), value :: on
      integer(c_int) :: s
    end function

    ! Datasets.
    function ssim_dataset_new(name, out) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      character(kind=c_char), intent(in) :: name(*)
      type(c_ptr), intent(out) :: out
      integer(c_int) :: s
    end function
    subroutine ssim_dataset_free(d) bind(c)
      import :: c_ptr
      type(c_ptr), value :: d
    end subroutine
    function ssim_dataset_add_meta_string(d, field, value) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: d
      character(kind=c_char), intent(in) :: field(*), value(*)
      integer(c_int) :: s
    end function
    function ssim_dataset_add_meta_scalar_f64(d, field, value) bind(c) result(s)
      import :: c_ptr, c_int, c_char, c_double
      type(c_ptr), value :: d
      character(kind=c_char), intent(in) :: field(*)
      real(c_double), value :: value
      integer(c_int) :: s
    end function
    function ssim_dataset_add_meta_scalar_i64(d, field, value) bind(c) result(s)
      import :: c_ptr, c_int, c_char, c_int64_t
      type(c_ptr), value :: d
      character(kind=c_char), intent(in) :: field(*)
      integer(c_int64_t), value :: value
      integer(c_int) :: s
    end function
    function ssim_dataset_meta_scalar_count(d, field, n) bind(c) result(s)
      import :: c_ptr, c_int, c_char, c_size_t
      type(c_ptr), value :: d
      character(kind=c_char), intent(in) :: field(*)
      integer(c_size_t), intent(out) :: n
      integer(c_int) :: s
    end function
    function ssim_dataset_get_meta_scalar(d, field, i, value) bind(c) result(s)
      import :: c_ptr, c_int, c_char, c_size_t, c_double
      type(c_ptr), value :: d
      character(kind=c_char), intent(in) :: field(*)
      integer(c_size_t), value :: i
      real(c_double), intent(out) :: value
      integer(c_int) :: s
    end function
    function ssim_dataset_meta_string_count(d, field, n) bind(c) result(s)
      import :: c_ptr, c_int, c_char, c_size_t
      type(c_ptr), value :: d
      character(kind=c_char), intent(in) :: field(*)
      integer(c_size_t), intent(out) :: n
      integer(c_int) :: s
    end function
    function ssim_dataset_get_meta_string(d, field, i, value) bind(c) result(s)
      import :: c_ptr, c_int, c_char, c_size_t
      type(c_ptr), value :: d
      character(kind=c_char), intent(in) :: field(*)
      integer(c_size_t), value :: i
      type(c_ptr), intent(out) :: value
      integer(c_int) :: s
    end function
    function ssim_put_dataset(c, d) bind(c) result(s)
      import :: c_ptr, c_int
      type(c_ptr), value :: c, d
      integer(c_int) :: s
    end function
    function ssim_get_dataset(c, name, out) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*)
      type(c_ptr), intent(out) :: out
      integer(c_int) :: s
    end function
    function ssim_append_to_list(c, list, d) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c, d
      character(kind=c_char), intent(in) :: list(*)
      integer(c_int) :: s
    end function

    ! Servers (address NULL: every server).
    function ssim_save(c, address) bind(c) result(s)
      import :: c_ptr, c_int
      type(c_ptr), value :: c, address
      integer(c_int) :: s
    end function
    function ssim_flush_db(c, address) bind(c) result(s)
      import :: c_ptr, c_int
      type(c_ptr), value :: c, address
      integer(c_int) :: s
    end function
    function ssim_config_set(c, parameter, value, address) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: parameter(*), value(*), address(*)
      integer(c_int) :: s
    end function
    ! Models and scripts (docs/inference.md)
    function ssim_set_model_from_file(c, name, path, device, batch, min_batch, timeout) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*), path(*), device(*)
      integer(c_int), value :: batch, min_batch, timeout
      integer(c_int) :: s
    end function
    function ssim_set_model(c, name, model, bytes, device, batch, min_batch, timeout) bind(c) result(s)
      import :: c_ptr, c_int, c_char, c_size_t
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*), model(*), device(*)
      integer(c_size_t), value :: bytes
      integer(c_int), value :: batch, min_batch, timeout
      integer(c_int) :: s
    end function
    function ssim_set_script(c, name, device, script) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*), device(*), script(*)
      integer(c_int) :: s
    end function
    function ssim_set_script_from_file(c, name, device, path) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*), device(*), path(*)
      integer(c_int) :: s
    end function
    function ssim_run_model_padded(c, name, inputs, n_in, in_width, outputs, n_out, out_width) bind(c) result(s)
      import :: c_ptr, c_int, c_char, c_size_t
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*), inputs(*), outputs(*)
      integer(c_size_t), value :: n_in, in_width, n_out, out_width
      integer(c_int) :: s
    end function
    function ssim_run_script_padded(c, name, fn, inputs, n_in, in_width, outputs, n_out, out_width) &
        bind(c) result(s)
      import :: c_ptr, c_int, c_char, c_size_t
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*), fn(*), inputs(*), outputs(*)
      integer(c_size_t), value :: n_in, in_width, n_out, out_width
      integer(c_int) :: s
    end function
    function ssim_model_exists(c, name, flag) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), intent(out) :: flag
      integer(c_int) :: s
    end function
    function ssim_poll_model(c, name, interval, tries, flag) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), value :: interval, tries
      integer(c_int), intent(out) :: flag
      integer(c_int) :: s
    end function
    function ssim_delete_model(c, name) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: s
    end function
    function ssim_delete_script(c, name) bind(c) result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: c
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int) :: s
    end function
  end interface
end module ssim_c_interfaces
