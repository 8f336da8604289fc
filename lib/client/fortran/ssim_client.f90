! ssim data client for Fortran: `use ssim_client`.
!
!   type(client_type) :: client
!   real(8) :: field(64, 32)
!   if (client%initialize() /= SSIM_OK) error stop last_error()   ! SSDB / SSDB_PASSWORD
!   status = client%put_tensor("field", field)
!
! Every call is a function returning a status (SSIM_OK or an SSIM_ERR_* code, as in the
! C API); last_error() gives the message. Arrays are real(4), real(8), integer(4) or
! integer(8) of any rank (0-15 here; the database takes up to 32). They are stored with
! their Fortran shape and indices: field(i, j) is field[i-1, j-1] in numpy and C, and a
! tensor written from numpy with shape (m, n) unpacks into a Fortran array(m, n) the same
! way. Names have trailing blanks trimmed. Key prefixes come from SSKEYOUT / SSKEYIN.
module ssim_client
  use, intrinsic :: iso_c_binding
  use ssim_c_interfaces
  implicit none
  private

  integer, parameter, public :: SSIM_OK = 0, SSIM_ERR_CONNECTION = 1, SSIM_ERR_AUTH = 2, &
    SSIM_ERR_KEY_NOT_FOUND = 3, SSIM_ERR_TYPE_MISMATCH = 4, SSIM_ERR_INVALID = 5, &
    SSIM_ERR_SERVER = 6, SSIM_ERR_INTERNAL = 7, SSIM_ERR_INFERENCE = 8
  integer(c_int), parameter :: F64 = 1, F32 = 2, I32 = 7, I64 = 8, FORTRAN_ORDER = 1

  public :: last_error, log_metric, flush_metrics

  type, public :: dataset_type
    type(c_ptr) :: handle = c_null_ptr
  contains
    procedure :: initialize => dataset_initialize
    procedure :: destroy => dataset_destroy
    procedure, private :: add_r4, add_r8, add_i4, add_i8
    generic :: add_tensor => add_r4, add_r8, add_i4, add_i8
    procedure, private :: dunpack_r4, dunpack_r8, dunpack_i4, dunpack_i8
    generic :: unpack_dataset_tensor => dunpack_r4, dunpack_r8, dunpack_i4, dunpack_i8
    procedure :: add_meta_string
    procedure, private :: add_meta_scalar_r8, add_meta_scalar_i8, add_meta_scalar_i4
    generic :: add_meta_scalar => add_meta_scalar_r8, add_meta_scalar_i8, add_meta_scalar_i4
    procedure :: get_meta_scalars
    procedure :: get_meta_string
  end type

  type, public :: client_type
    type(c_ptr) :: handle = c_null_ptr
  contains
    procedure :: initialize => client_initialize
    procedure :: destroy => client_destroy
    procedure, private :: put_r4, put_r8, put_i4, put_i8
    generic :: put_tensor => put_r4, put_r8, put_i4, put_i8
    procedure, private :: unpack_r4, unpack_r8, unpack_i4, unpack_i8
    generic :: unpack_tensor => unpack_r4, unpack_r8, unpack_i4, unpack_i8
    procedure, private :: get_r4, get_r8, get_i4, get_i8
    generic :: get_tensor => get_r4, get_r8, get_i4, get_i8
    procedure :: tensor_exists, dataset_exists, key_exists
    procedure :: poll_tensor, poll_dataset, poll_key
    procedure :: delete_tensor, copy_tensor, rename_tensor
    procedure :: put_dataset, get_dataset, delete_dataset, copy_dataset, rename_dataset
    procedure :: append_to_list, get_list_length, delete_list, copy_list, rename_list
    procedure :: poll_list_length, poll_list_length_gte, poll_list_length_lte
    procedure :: set_data_source
    procedure :: use_tensor_ensemble_prefix, use_dataset_ensemble_prefix, use_list_ensemble_prefix
    procedure :: save, flush_db, config_set
    procedure :: set_model, set_model_from_file, set_script, set_script_from_file
    procedure :: run_model, run_script, model_exists, poll_model, delete_model, delete_script
  end type

contains

  ! Training metrics (docs/metrics.md): status = log_metric("loss", 0.31d0, step=120)
  integer function log_metric(name, value, step, epoch, phase) result(status)
    character(len=*), intent(in) :: name
    real(8), intent(in) :: value
    integer, intent(in), optional :: step, epoch
    character(len=*), intent(in), optional :: phase
    integer(c_long_long) :: s, e
    s = -1
    e = -1
    if (present(step)) s = step
    if (present(epoch)) e = epoch
    if (present(phase)) then
      status = ssim_metric_log(cstr(name), real(value, c_double), s, e, cstr(phase))
    else
      status = ssim_metric_log(cstr(name), real(value, c_double), s, e, cstr(""))
    end if
  end function

  integer function flush_metrics() result(status)
    status = ssim_metric_flush()
  end function

  ! ---- helpers ----

  function cstr(s) result(c)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=:), allocatable :: c
    c = trim(s) // c_null_char
  end function

  function from_c(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function

  function flag(b) result(i)
    logical, intent(in) :: b
    integer(c_int) :: i
    i = merge(1_c_int, 0_c_int, b)
  end function

  !> The message of the last failed call in this thread.
  function last_error() result(message)
    character(len=:), allocatable :: message
    message = from_c(ssim_last_error())
  end function

  ! Reads a stored tensor, checks its dtype and rank, and gives its shape.
  integer function fetch(self, name, dtype, want_rank, tensor, dims) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    integer(c_int), intent(in) :: dtype
    integer, intent(in) :: want_rank
    type(c_ptr), intent(out) :: tensor
    integer(c_int64_t), allocatable, intent(out) :: dims(:)
    integer(c_int64_t), pointer :: stored(:)
    integer :: n
    status = ssim_get_tensor(self%handle, cstr(name), tensor)
    if (status /= SSIM_OK) return
    n = int(ssim_tensor_ndims(tensor))
    if (ssim_tensor_dtype(tensor) /= dtype .or. n /= want_rank) then
      ! A mismatch: let the C side word the message.
      allocate(dims(max(n, 1)))
      dims = 0
      status = ssim_tensor_unpack(tensor, c_null_ptr, dims, int(want_rank, c_size_t), dtype, FORTRAN_ORDER)
      call ssim_tensor_free(tensor)
      tensor = c_null_ptr
      return
    end if
    call c_f_pointer(ssim_tensor_dims(tensor), stored, [max(n, 1)])
    dims = stored(1:n)
  end function

  integer function finish(tensor, data, dims, dtype) result(status)
    type(c_ptr), intent(in) :: tensor, data
    integer(c_int64_t), intent(in) :: dims(:)
    integer(c_int), intent(in) :: dtype
    status = ssim_tensor_unpack(tensor, data, dims, size(dims, kind=c_size_t), dtype, FORTRAN_ORDER)
    call ssim_tensor_free(tensor)
  end function

  ! ---- client ----

  !> Connects to `address` ("host:port[,...]" or "unix:/path") with `password`, or by
  !> default to SSDB with SSDB_PASSWORD.
  integer function client_initialize(self, address, password) result(status)
    class(client_type), intent(inout) :: self
    character(len=*), intent(in), optional :: address, password
    if (present(address)) then
      if (present(password)) then
        status = ssim_client_connect(cstr(address), cstr(password), self%handle)
      else
        status = ssim_client_connect(cstr(address), cstr(""), self%handle)
      end if
    else
      status = ssim_client_new(self%handle)
    end if
  end function

  subroutine client_destroy(self)
    class(client_type), intent(inout) :: self
    call ssim_client_free(self%handle)
    self%handle = c_null_ptr
  end subroutine

  integer function put_r4(self, name, data) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    real(c_float), dimension(..), contiguous, target, intent(in) :: data
    status = ssim_put_tensor(self%handle, cstr(name), c_loc(data), shape(data, c_int64_t), &
                             int(rank(data), c_size_t), F32, FORTRAN_ORDER)
  end function
  integer function put_r8(self, name, data) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    real(c_double), dimension(..), contiguous, target, intent(in) :: data
    status = ssim_put_tensor(self%handle, cstr(name), c_loc(data), shape(data, c_int64_t), &
                             int(rank(data), c_size_t), F64, FORTRAN_ORDER)
  end function
  integer function put_i4(self, name, data) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    integer(c_int32_t), dimension(..), contiguous, target, intent(in) :: data
    status = ssim_put_tensor(self%handle, cstr(name), c_loc(data), shape(data, c_int64_t), &
                             int(rank(data), c_size_t), I32, FORTRAN_ORDER)
  end function
  integer function put_i8(self, name, data) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    integer(c_int64_t), dimension(..), contiguous, target, intent(in) :: data
    status = ssim_put_tensor(self%handle, cstr(name), c_loc(data), shape(data, c_int64_t), &
                             int(rank(data), c_size_t), I64, FORTRAN_ORDER)
  end function

  !> Into an array of the stored shape and type.
  integer function unpack_r4(self, name, data) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    real(c_float), dimension(..), contiguous, target, intent(inout) :: data
    status = ssim_unpack_tensor(self%handle, cstr(name), c_loc(data), shape(data, c_int64_t), &
                                int(rank(data), c_size_t), F32, FORTRAN_ORDER)
  end function
  integer function unpack_r8(self, name, data) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    real(c_double), dimension(..), contiguous, target, intent(inout) :: data
    status = ssim_unpack_tensor(self%handle, cstr(name), c_loc(data), shape(data, c_int64_t), &
                                int(rank(data), c_size_t), F64, FORTRAN_ORDER)
  end function
  integer function unpack_i4(self, name, data) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    integer(c_int32_t), dimension(..), contiguous, target, intent(inout) :: data
    status = ssim_unpack_tensor(self%handle, cstr(name), c_loc(data), shape(data, c_int64_t), &
                                int(rank(data), c_size_t), I32, FORTRAN_ORDER)
  end function
  integer function unpack_i8(self, name, data) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    integer(c_int64_t), dimension(..), contiguous, target, intent(inout) :: data
    status = ssim_unpack_tensor(self%handle, cstr(name), c_loc(data), shape(data, c_int64_t), &
                                int(rank(data), c_size_t), I64, FORTRAN_ORDER)
  end function

  !> Into an allocatable array of rank 1-4, (re)allocated to the stored shape.
  integer function get_r4(self, name, data) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    real(c_float), dimension(..), allocatable, target, intent(inout) :: data
    type(c_ptr) :: t
    integer(c_int64_t), allocatable :: d(:)
    status = fetch(self, name, F32, rank(data), t, d)
    if (status /= SSIM_OK) return
    select rank (data)
    rank (1)
      if (allocated(data)) deallocate(data)
      allocate(data(d(1)))
      status = finish(t, c_loc(data), d, F32)
    rank (2)
      if (allocated(data)) deallocate(data)
      allocate(data(d(1), d(2)))
      status = finish(t, c_loc(data), d, F32)
    rank (3)
      if (allocated(data)) deallocate(data)
      allocate(data(d(1), d(2), d(3)))
      status = finish(t, c_loc(data), d, F32)
    rank (4)
      if (allocated(data)) deallocate(data)
      allocate(data(d(1), d(2), d(3), d(4)))
      status = finish(t, c_loc(data), d, F32)
    rank default  ! only ranks 1-4 here; unpack_tensor takes any
      call ssim_tensor_free(t)
      status = SSIM_ERR_INVALID
    end select
  end function
  integer function get_r8(self, name, data) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    real(c_double), dimension(..), allocatable, target, intent(inout) :: data
    type(c_ptr) :: t
    integer(c_int64_t), allocatable :: d(:)
    status = fetch(self, name, F64, rank(data), t, d)
    if (status /= SSIM_OK) return
    select rank (data)
    rank (1)
      if (allocated(data)) deallocate(data)
      allocate(data(d(1)))
      status = finish(t, c_loc(data), d, F64)
    rank (2)
      if (allocated(data)) deallocate(data)
      allocate(data(d(1), d(2)))
      status = finish(t, c_loc(data), d, F64)
    rank (3)
      if (allocated(data)) deallocate(data)
      allocate(data(d(1), d(2), d(3)))
      status = finish(t, c_loc(data), d, F64)
    rank (4)
      if (allocated(data)) deallocate(data)
      allocate(data(d(1), d(2), d(3), d(4)))
      status = finish(t, c_loc(data), d, F64)
    rank default  ! only ranks 1-4 here; unpack_tensor takes any
      call ssim_tensor_free(t)
      status = SSIM_ERR_INVALID
    end select
  end function
  integer function get_i4(self, name, data) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    integer(c_int32_t), dimension(..), allocatable, target, intent(inout) :: data
    type(c_ptr) :: t
    integer(c_int64_t), allocatable :: d(:)
    status = fetch(self, name, I32, rank(data), t, d)
    if (status /= SSIM_OK) return
    select rank (data)
    rank (1)
      if (allocated(data)) deallocate(data)
      allocate(data(d(1)))
      status = finish(t, c_loc(data), d, I32)
    rank (2)
      if (allocated(data)) deallocate(data)
      allocate(data(d(1), d(2)))
      status = finish(t, c_loc(data), d, I32)
    rank (3)
      if (allocated(data)) deallocate(data)
      allocate(data(d(1), d(2), d(3)))
      status = finish(t, c_loc(data), d, I32)
    rank (4)
      if (allocated(data)) deallocate(data)
      allocate(data(d(1), d(2), d(3), d(4)))
      status = finish(t, c_loc(data), d, I32)
    rank default  ! only ranks 1-4 here; unpack_tensor takes any
      call ssim_tensor_free(t)
      status = SSIM_ERR_INVALID
    end select
  end function
  integer function get_i8(self, name, data) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    integer(c_int64_t), dimension(..), allocatable, target, intent(inout) :: data
    type(c_ptr) :: t
    integer(c_int64_t), allocatable :: d(:)
    status = fetch(self, name, I64, rank(data), t, d)
    if (status /= SSIM_OK) return
    select rank (data)
    rank (1)
      if (allocated(data)) deallocate(data)
      allocate(data(d(1)))
      status = finish(t, c_loc(data), d, I64)
    rank (2)
      if (allocated(data)) deallocate(data)
      allocate(data(d(1), d(2)))
      status = finish(t, c_loc(data), d, I64)
    rank (3)
      if (allocated(data)) deallocate(data)
      allocate(data(d(1), d(2), d(3)))
      status = finish(t, c_loc(data), d, I64)
    rank (4)
      if (allocated(data)) deallocate(data)
      allocate(data(d(1), d(2), d(3), d(4)))
      status = finish(t, c_loc(data), d, I64)
    rank default  ! only ranks 1-4 here; unpack_tensor takes any
      call ssim_tensor_free(t)
      status = SSIM_ERR_INVALID
    end select
  end function

  integer function tensor_exists(self, name, exists) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    logical, intent(out) :: exists
    integer(c_int) :: f
    status = ssim_tensor_exists(self%handle, cstr(name), f)
    exists = f /= 0
  end function
  integer function dataset_exists(self, name, exists) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    logical, intent(out) :: exists
    integer(c_int) :: f
    status = ssim_dataset_exists(self%handle, cstr(name), f)
    exists = f /= 0
  end function
  !> The raw key, no prefix added.
  integer function key_exists(self, key, exists) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: key
    logical, intent(out) :: exists
    integer(c_int) :: f
    status = ssim_key_exists(self%handle, cstr(key), f)
    exists = f /= 0
  end function

  integer function poll_tensor(self, name, interval_ms, tries, found) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    integer, intent(in) :: interval_ms, tries
    logical, intent(out) :: found
    integer(c_int) :: f
    status = ssim_poll_tensor(self%handle, cstr(name), int(interval_ms, c_int), int(tries, c_int), f)
    found = f /= 0
  end function
  integer function poll_dataset(self, name, interval_ms, tries, found) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    integer, intent(in) :: interval_ms, tries
    logical, intent(out) :: found
    integer(c_int) :: f
    status = ssim_poll_dataset(self%handle, cstr(name), int(interval_ms, c_int), int(tries, c_int), f)
    found = f /= 0
  end function
  integer function poll_key(self, key, interval_ms, tries, found) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: key
    integer, intent(in) :: interval_ms, tries
    logical, intent(out) :: found
    integer(c_int) :: f
    status = ssim_poll_key(self%handle, cstr(key), int(interval_ms, c_int), int(tries, c_int), f)
    found = f /= 0
  end function

  integer function delete_tensor(self, name) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    status = ssim_delete_tensor(self%handle, cstr(name))
  end function
  integer function copy_tensor(self, source, destination) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: source, destination
    status = ssim_copy_tensor(self%handle, cstr(source), cstr(destination))
  end function
  integer function rename_tensor(self, source, destination) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: source, destination
    status = ssim_rename_tensor(self%handle, cstr(source), cstr(destination))
  end function

  integer function put_dataset(self, dataset) result(status)
    class(client_type), intent(in) :: self
    type(dataset_type), intent(in) :: dataset
    status = ssim_put_dataset(self%handle, dataset%handle)
  end function
  !> A new dataset (free it with dataset%destroy()).
  integer function get_dataset(self, name, dataset) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    type(dataset_type), intent(out) :: dataset
    status = ssim_get_dataset(self%handle, cstr(name), dataset%handle)
  end function
  integer function delete_dataset(self, name) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    status = ssim_delete_dataset(self%handle, cstr(name))
  end function
  integer function copy_dataset(self, source, destination) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: source, destination
    status = ssim_copy_dataset(self%handle, cstr(source), cstr(destination))
  end function
  integer function rename_dataset(self, source, destination) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: source, destination
    status = ssim_rename_dataset(self%handle, cstr(source), cstr(destination))
  end function

  integer function append_to_list(self, list, dataset) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: list
    type(dataset_type), intent(in) :: dataset
    status = ssim_append_to_list(self%handle, cstr(list), dataset%handle)
  end function
  integer function get_list_length(self, list, length) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: list
    integer(c_int64_t), intent(out) :: length
    status = ssim_get_list_length(self%handle, cstr(list), length)
  end function
  integer function delete_list(self, list) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: list
    status = ssim_delete_list(self%handle, cstr(list))
  end function
  integer function copy_list(self, source, destination) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: source, destination
    status = ssim_copy_list(self%handle, cstr(source), cstr(destination))
  end function
  integer function rename_list(self, source, destination) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: source, destination
    status = ssim_rename_list(self%handle, cstr(source), cstr(destination))
  end function
  !> Until the list holds at least `length` datasets (as poll_list_length_gte).
  integer function poll_list_length(self, list, length, interval_ms, tries, reached) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: list
    integer, intent(in) :: length, interval_ms, tries
    logical, intent(out) :: reached
    status = poll_list_length_gte(self, list, length, interval_ms, tries, reached)
  end function
  integer function poll_list_length_gte(self, list, length, interval_ms, tries, reached) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: list
    integer, intent(in) :: length, interval_ms, tries
    logical, intent(out) :: reached
    integer(c_int) :: f
    status = ssim_poll_list_length_gte(self%handle, cstr(list), int(length, c_int64_t), int(interval_ms, c_int), &
                                       int(tries, c_int), f)
    reached = f /= 0
  end function
  integer function poll_list_length_lte(self, list, length, interval_ms, tries, reached) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: list
    integer, intent(in) :: length, interval_ms, tries
    logical, intent(out) :: reached
    integer(c_int) :: f
    status = ssim_poll_list_length_lte(self%handle, cstr(list), int(length, c_int64_t), int(interval_ms, c_int), &
                                       int(tries, c_int), f)
    reached = f /= 0
  end function

  integer function set_data_source(self, source) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: source
    status = ssim_set_data_source(self%handle, cstr(source))
  end function
  integer function use_tensor_ensemble_prefix(self, on) result(status)
    class(client_type), intent(in) :: self
    logical, intent(in) :: on
    status = ssim_use_tensor_ensemble_prefix(self%handle, flag(on))
  end function
  integer function use_dataset_ensemble_prefix(self, on) result(status)
    class(client_type), intent(in) :: self
    logical, intent(in) :: on
    status = ssim_use_dataset_ensemble_prefix(self%handle, flag(on))
  end function
  integer function use_list_ensemble_prefix(self, on) result(status)
    class(client_type), intent(in) :: self
    logical, intent(in) :: on
    status = ssim_use_list_ensemble_prefix(self%handle, flag(on))
  end function

  !> SAVE on the server at `address` ("host:port"), or on every server.
  integer function save(self, address) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in), optional :: address
    character(kind=c_char, len=:), allocatable, target :: a
    if (present(address)) then
      a = cstr(address)
      status = ssim_save(self%handle, c_loc(a))
    else
      status = ssim_save(self%handle, c_null_ptr)
    end if
  end function
  !> FLUSHDB (removes every key) on the server at `address`, or on every server.
  integer function flush_db(self, address) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in), optional :: address
    character(kind=c_char, len=:), allocatable, target :: a
    if (present(address)) then
      a = cstr(address)
      status = ssim_flush_db(self%handle, c_loc(a))
    else
      status = ssim_flush_db(self%handle, c_null_ptr)
    end if
  end function
  integer function config_set(self, parameter, value, address) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: parameter, value, address
    status = ssim_config_set(self%handle, cstr(parameter), cstr(value), cstr(address))
  end function

  ! ---- dataset ----

  integer function dataset_initialize(self, name) result(status)
    class(dataset_type), intent(inout) :: self
    character(len=*), intent(in) :: name
    status = ssim_dataset_new(cstr(name), self%handle)
  end function

  subroutine dataset_destroy(self)
    class(dataset_type), intent(inout) :: self
    call ssim_dataset_free(self%handle)
    self%handle = c_null_ptr
  end subroutine

  integer function add_r4(self, name, data) result(status)
    class(dataset_type), intent(in) :: self
    character(len=*), intent(in) :: name
    real(c_float), dimension(..), contiguous, target, intent(in) :: data
    status = ssim_dataset_add_tensor(self%handle, cstr(name), c_loc(data), shape(data, c_int64_t), &
                                     int(rank(data), c_size_t), F32, FORTRAN_ORDER)
  end function
  integer function add_r8(self, name, data) result(status)
    class(dataset_type), intent(in) :: self
    character(len=*), intent(in) :: name
    real(c_double), dimension(..), contiguous, target, intent(in) :: data
    status = ssim_dataset_add_tensor(self%handle, cstr(name), c_loc(data), shape(data, c_int64_t), &
                                     int(rank(data), c_size_t), F64, FORTRAN_ORDER)
  end function
  integer function add_i4(self, name, data) result(status)
    class(dataset_type), intent(in) :: self
    character(len=*), intent(in) :: name
    integer(c_int32_t), dimension(..), contiguous, target, intent(in) :: data
    status = ssim_dataset_add_tensor(self%handle, cstr(name), c_loc(data), shape(data, c_int64_t), &
                                     int(rank(data), c_size_t), I32, FORTRAN_ORDER)
  end function
  integer function add_i8(self, name, data) result(status)
    class(dataset_type), intent(in) :: self
    character(len=*), intent(in) :: name
    integer(c_int64_t), dimension(..), contiguous, target, intent(in) :: data
    status = ssim_dataset_add_tensor(self%handle, cstr(name), c_loc(data), shape(data, c_int64_t), &
                                     int(rank(data), c_size_t), I64, FORTRAN_ORDER)
  end function

  integer function dunpack_r4(self, name, data) result(status)
    class(dataset_type), intent(in) :: self
    character(len=*), intent(in) :: name
    real(c_float), dimension(..), contiguous, target, intent(inout) :: data
    status = ssim_dataset_unpack_tensor(self%handle, cstr(name), c_loc(data), shape(data, c_int64_t), &
                                        int(rank(data), c_size_t), F32, FORTRAN_ORDER)
  end function
  integer function dunpack_r8(self, name, data) result(status)
    class(dataset_type), intent(in) :: self
    character(len=*), intent(in) :: name
    real(c_double), dimension(..), contiguous, target, intent(inout) :: data
    status = ssim_dataset_unpack_tensor(self%handle, cstr(name), c_loc(data), shape(data, c_int64_t), &
                                        int(rank(data), c_size_t), F64, FORTRAN_ORDER)
  end function
  integer function dunpack_i4(self, name, data) result(status)
    class(dataset_type), intent(in) :: self
    character(len=*), intent(in) :: name
    integer(c_int32_t), dimension(..), contiguous, target, intent(inout) :: data
    status = ssim_dataset_unpack_tensor(self%handle, cstr(name), c_loc(data), shape(data, c_int64_t), &
                                        int(rank(data), c_size_t), I32, FORTRAN_ORDER)
  end function
  integer function dunpack_i8(self, name, data) result(status)
    class(dataset_type), intent(in) :: self
    character(len=*), intent(in) :: name
    integer(c_int64_t), dimension(..), contiguous, target, intent(inout) :: data
    status = ssim_dataset_unpack_tensor(self%handle, cstr(name), c_loc(data), shape(data, c_int64_t), &
                                        int(rank(data), c_size_t), I64, FORTRAN_ORDER)
  end function

  integer function add_meta_string(self, field, value) result(status)
    class(dataset_type), intent(in) :: self
    character(len=*), intent(in) :: field, value
    status = ssim_dataset_add_meta_string(self%handle, cstr(field), cstr(value))
  end function
  integer function add_meta_scalar_r8(self, field, value) result(status)
    class(dataset_type), intent(in) :: self
    character(len=*), intent(in) :: field
    real(c_double), intent(in) :: value
    status = ssim_dataset_add_meta_scalar_f64(self%handle, cstr(field), value)
  end function
  integer function add_meta_scalar_i8(self, field, value) result(status)
    class(dataset_type), intent(in) :: self
    character(len=*), intent(in) :: field
    integer(c_int64_t), intent(in) :: value
    status = ssim_dataset_add_meta_scalar_i64(self%handle, cstr(field), value)
  end function
  integer function add_meta_scalar_i4(self, field, value) result(status)
    class(dataset_type), intent(in) :: self
    character(len=*), intent(in) :: field
    integer(c_int32_t), intent(in) :: value
    status = ssim_dataset_add_meta_scalar_i64(self%handle, cstr(field), int(value, c_int64_t))
  end function

  !> Every number of the metadata field `field`.
  integer function get_meta_scalars(self, field, values) result(status)
    class(dataset_type), intent(in) :: self
    character(len=*), intent(in) :: field
    real(c_double), allocatable, intent(out) :: values(:)
    integer(c_size_t) :: n, i
    status = ssim_dataset_meta_scalar_count(self%handle, cstr(field), n)
    if (status /= SSIM_OK) return
    allocate(values(n))
    do i = 1, n
      status = ssim_dataset_get_meta_scalar(self%handle, cstr(field), i - 1, values(i))
      if (status /= SSIM_OK) return
    end do
  end function
  !> The index-th (from 1) string of the metadata field `field`.
  integer function get_meta_string(self, field, index, value) result(status)
    class(dataset_type), intent(in) :: self
    character(len=*), intent(in) :: field
    integer, intent(in) :: index
    character(len=:), allocatable, intent(out) :: value
    type(c_ptr) :: p
    status = ssim_dataset_get_meta_string(self%handle, cstr(field), int(index - 1, c_size_t), p)
    if (status == SSIM_OK) value = from_c(p)
  end function

  ! ---- models and scripts (docs/inference.md) ----
  ! backend is "TORCH"; device "CPU", "GPU" or "GPU:n"; batch_size > 0 batches calls from
  ! many ranks, waiting up to min_batch_timeout ms for min_batch_size rows.
  integer function set_model_from_file(self, name, model_file, backend, device, batch_size, min_batch_size, &
                                       min_batch_timeout) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name, model_file, backend, device
    integer, intent(in), optional :: batch_size, min_batch_size, min_batch_timeout
    if (trim(backend) /= "TORCH" .and. trim(backend) /= "torch") then
      status = SSIM_ERR_INVALID
      return
    end if
    status = ssim_set_model_from_file(self%handle, cstr(name), cstr(model_file), cstr(device), &
      opt(batch_size), opt(min_batch_size), opt(min_batch_timeout))
  end function
  !> `model`: the TorchScript bytes (torch.jit.save) in a character variable.
  integer function set_model(self, name, model, backend, device, batch_size, min_batch_size, &
                             min_batch_timeout) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name, model, backend, device
    integer, intent(in), optional :: batch_size, min_batch_size, min_batch_timeout
    if (trim(backend) /= "TORCH" .and. trim(backend) /= "torch") then
      status = SSIM_ERR_INVALID
      return
    end if
    status = ssim_set_model(self%handle, cstr(name), model, int(len(model), c_size_t), cstr(device), &
      opt(batch_size), opt(min_batch_size), opt(min_batch_timeout))
  end function
  integer function set_script(self, name, device, script) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name, device, script
    status = ssim_set_script(self%handle, cstr(name), cstr(device), script // c_null_char)
  end function
  integer function set_script_from_file(self, name, device, script_file) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name, device, script_file
    status = ssim_set_script_from_file(self%handle, cstr(name), cstr(device), cstr(script_file))
  end function
  !> inputs, outputs: tensor names (character arrays; trailing blanks are not part of a name).
  integer function run_model(self, name, inputs, outputs) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    character(len=*), dimension(:), intent(in) :: inputs, outputs
    status = ssim_run_model_padded(self%handle, cstr(name), inputs, int(size(inputs), c_size_t), &
      int(len(inputs), c_size_t), outputs, int(size(outputs), c_size_t), int(len(outputs), c_size_t))
  end function
  integer function run_script(self, name, func, inputs, outputs) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name, func
    character(len=*), dimension(:), intent(in) :: inputs, outputs
    status = ssim_run_script_padded(self%handle, cstr(name), cstr(func), inputs, int(size(inputs), c_size_t), &
      int(len(inputs), c_size_t), outputs, int(size(outputs), c_size_t), int(len(outputs), c_size_t))
  end function
  integer function model_exists(self, name, exists) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    logical, intent(out) :: exists
    integer(c_int) :: f
    status = ssim_model_exists(self%handle, cstr(name), f)
    exists = f /= 0
  end function
  integer function poll_model(self, name, interval_ms, tries, found) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    integer, intent(in) :: interval_ms, tries
    logical, intent(out) :: found
    integer(c_int) :: f
    status = ssim_poll_model(self%handle, cstr(name), int(interval_ms, c_int), int(tries, c_int), f)
    found = f /= 0
  end function
  integer function delete_model(self, name) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    status = ssim_delete_model(self%handle, cstr(name))
  end function
  integer function delete_script(self, name) result(status)
    class(client_type), intent(in) :: self
    character(len=*), intent(in) :: name
    status = ssim_delete_script(self%handle, cstr(name))
  end function

  function opt(v) result(c)
    integer, intent(in), optional :: v
    integer(c_int) :: c
    c = 0
    if (present(v)) c = int(v, c_int)
  end function

end module ssim_client
