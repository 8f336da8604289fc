! The Fortran client against a real database (driven by tests/integration/test_client.py):
!   fortran_check put   writes f_* arrays (ranks 1-4, four types), a dataset and a list
!   fortran_check get   reads the py_* tensors Python wrote, checks shapes and values
!   fortran_check errors  checks the error codes
! Fortran a(i, j) must be numpy's a[i-1, j-1]. Prints what failed and stops with 1.
program fortran_check
  use, intrinsic :: iso_c_binding
  use ssim_client
  implicit none
  type(client_type) :: client
  character(len=16) :: mode
  integer :: failures = 0

  call get_command_argument(1, mode)
  call ok(client%initialize(), "initialize")
  select case (trim(mode))
  case ("put")
    call put()
  case ("get")
    call get()
  case ("errors")
    call errors()
  case ("metrics")
    call ok(log_metric("loss", 0.25d0, step=3), "log_metric")
    call ok(log_metric("val_acc", 0.8d0, step=3, epoch=1, phase="val"), "log_metric with phase")
    call check(log_metric("9bad", 1d0) /= SSIM_OK, "a bad metric name is refused")
    call ok(flush_metrics(), "flush_metrics")
  case default
    stop 2
  end select
  call client%destroy()
  if (failures > 0) error stop 1
  print '(a)', "ok"

contains

  subroutine ok(status, what)
    integer, intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= SSIM_OK) then
      print '(a, a, i0, a, a)', what, " -> ", status, ": ", last_error()
      error stop 1
    end if
  end subroutine

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      print '(a, a)', "failed: ", what
      failures = failures + 1
    end if
  end subroutine

  subroutine put()
    real(8) :: a(2, 3)
    real(4) :: b(2, 3, 4)
    integer(4) :: v(5)
    integer(8) :: w(2, 2, 2, 3)
    type(dataset_type) :: ds
    integer :: i, j, k, l
    do j = 1, 3
      do i = 1, 2
        a(i, j) = 10 * i + j
        do k = 1, 4
          b(i, j, k) = 100 * i + 10 * j + k
        end do
      end do
    end do
    v = [-2, -1, 0, 1, huge(0)]
    do l = 1, 3
      do k = 1, 2
        do j = 1, 2
          do i = 1, 2
            w(i, j, k, l) = 1000 * i + 100 * j + 10 * k + l
          end do
        end do
      end do
    end do
    call ok(client%put_tensor("f_f64_2d", a), "put a")
    call ok(client%put_tensor("f_f32_3d", b), "put b")
    call ok(client%put_tensor("f_i32_1d", v), "put v")
    call ok(client%put_tensor("f_i64_4d", w), "put w")
    call ok(client%put_tensor("f_f64_row", a(2, :)), "put a row (not contiguous: copied)")
    call ok(ds%initialize("f_ds"), "dataset")
    call ok(ds%add_tensor("a", a), "add_tensor")
    call ok(ds%add_meta_string("units", "m/s"), "add_meta_string")
    call ok(ds%add_meta_scalar("step", 42), "add_meta_scalar")
    call ok(client%put_dataset(ds), "put_dataset")
    call ok(client%append_to_list("f_list", ds), "append_to_list")
    call ds%destroy()
  end subroutine

  subroutine get()
    real(8) :: a(2, 3)
    real(8), allocatable :: g(:, :)
    integer(8), allocatable :: e(:, :, :)
    real(4), allocatable :: x(:)
    real(8), allocatable :: scalars(:)
    character(len=:), allocatable :: name
    type(dataset_type) :: ds
    integer(c_int64_t) :: length
    logical :: found
    integer :: i, j, k
    ! py_f64_2d: numpy a[i, j] = 10 (i+1) + (j+1), shape (2, 3)
    call ok(client%unpack_tensor("py_f64_2d", a), "unpack_tensor")
    call ok(client%get_tensor("py_f64_2d", g), "get_tensor")
    call check(all(shape(g) == [2, 3]), "get_tensor shape")
    do j = 1, 3
      do i = 1, 2
        call check(a(i, j) == 10 * i + j, "unpack_tensor value")
        call check(g(i, j) == 10 * i + j, "get_tensor value")
      end do
    end do
    ! py_i64_3d: numpy arange(24).reshape(2, 3, 4): e(i, j, k) = 12 (i-1) + 4 (j-1) + (k-1)
    call ok(client%get_tensor("py_i64_3d", e), "get_tensor 3d")
    call check(all(shape(e) == [2, 3, 4]), "3d shape")
    do k = 1, 4
      do j = 1, 3
        do i = 1, 2
          call check(e(i, j, k) == 12 * (i - 1) + 4 * (j - 1) + (k - 1), "3d value")
        end do
      end do
    end do
    call ok(client%get_dataset("py_ds", ds), "get_dataset")
    allocate(x(4))
    call ok(ds%unpack_dataset_tensor("x", x), "unpack_dataset_tensor")
    call check(all(x == [0.0, 1.0, 2.0, 3.0]), "dataset tensor")
    call ok(ds%get_meta_scalars("step", scalars), "get_meta_scalars")
    call check(size(scalars) == 1, "one scalar")
    call check(scalars(1) == 7, "scalar value")
    call ok(ds%get_meta_string("names", 2, name), "get_meta_string")
    call check(name == "beta", "meta string")
    call ds%destroy()
    call ok(client%get_list_length("py_list", length), "get_list_length")
    call check(length == 3, "list length")
    call ok(client%poll_list_length_gte("py_list", 3, 10, 1, found), "poll_list_length_gte")
    call check(found, "list has 3")
    call ok(client%poll_tensor("py_f64_2d", 10, 1, found), "poll_tensor")
    call check(found, "tensor found")
  end subroutine

  subroutine errors()
    real(8) :: wrong(3, 2)
    real(4) :: single(2, 3)
    real(8), allocatable :: g(:)
    logical :: found
    call check(client%unpack_tensor("no_such_tensor", wrong) == SSIM_ERR_KEY_NOT_FOUND, "missing key")
    call check(index(last_error(), "no_such_tensor") > 0, "message names the key")
    call check(client%unpack_tensor("py_f64_2d", wrong) == SSIM_ERR_TYPE_MISMATCH, "wrong shape")
    call check(index(last_error(), "f64(2, 3)") > 0, "message gives the stored shape")
    call check(client%unpack_tensor("py_f64_2d", single) == SSIM_ERR_TYPE_MISMATCH, "wrong type")
    call check(client%get_tensor("py_f64_2d", g) == SSIM_ERR_TYPE_MISMATCH, "wrong rank")
    call check(.not. allocated(g), "nothing allocated on a mismatch")
    call ok(client%poll_key("no_such_key", 1, 2, found), "poll_key")
    call check(.not. found, "poll_key of a missing key")
  end subroutine

end program fortran_check
