! A "simulation" in Fortran that asks the trained surrogate for sin(x) on its grid:
! put the grid, run the model beside the database, read the answer. No Python here.
program surrogate_simulation
  use ssim_client
  implicit none
  integer, parameter :: n = 64
  real(4), parameter :: pi = 3.14159265
  type(client_type) :: client
  real(4) :: x(n, 1), y(n, 1), worst
  integer :: i

  if (client%initialize() /= SSIM_OK) error stop "cannot reach the database"
  do i = 1, n
    x(i, 1) = -pi + 2 * pi * real(i - 1) / real(n - 1)
  end do
  call check(client%put_tensor("grid", x))
  call check(client%run_model("surrogate", inputs=["grid"], outputs=["answer"]))
  call check(client%unpack_tensor("answer", y))
  worst = maxval(abs(y(:, 1) - sin(x(:, 1))))
  print '(A, F8.5)', "fortran: largest error of the surrogate against sin(x): ", worst
  call client%destroy()
  if (worst > 0.1) error stop "the surrogate is too far from sin(x)"
contains
  subroutine check(status)
    integer, intent(in) :: status
    if (status /= SSIM_OK) then
      print *, "ssim: ", last_error()
      error stop 1
    end if
  end subroutine
end program
