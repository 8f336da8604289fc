! Benchmark (issue 13), Fortran side of bench_languages.sh: seconds for `reps` put_tensor
! and `reps` unpack_tensor of one real(8) array of `bytes`, best of three. SHAPE is 1d
! (stored as it is) or 2d (a square-ish array, reordered to row-major and back).
!   lang_bench_fortran ADDRESS BYTES REPS 1d|2d
program lang_bench
  use ssim_client
  implicit none
  type(client_type) :: c
  character(len=256) :: address, arg
  integer(8) :: bytes, n, rows
  integer :: reps, i, round
  real(8), allocatable :: v(:), m(:, :)
  real(8) :: put, get, t0, t1, t2
  logical :: two_d
  call get_command_argument(1, address)
  call get_command_argument(2, arg)
  read (arg, *) bytes
  call get_command_argument(3, arg)
  read (arg, *) reps
  call get_command_argument(4, arg)
  two_d = trim(arg) == "2d"
  if (c%initialize(trim(address)) /= SSIM_OK) error stop last_error()
  n = bytes / 8
  rows = max(1_8, int(sqrt(real(n, 8)), 8))
  if (two_d) then
    allocate(m(rows, n / rows))
    m = 1.5d0
  else
    allocate(v(n))
    v = 1.5d0
  end if
  put = huge(put)
  get = huge(get)
  do round = 1, 3
    t0 = seconds()
    do i = 1, reps
      if (two_d) then
        if (c%put_tensor("bench", m) /= SSIM_OK) error stop last_error()
      else
        if (c%put_tensor("bench", v) /= SSIM_OK) error stop last_error()
      end if
    end do
    t1 = seconds()
    do i = 1, reps
      if (two_d) then
        if (c%unpack_tensor("bench", m) /= SSIM_OK) error stop last_error()
      else
        if (c%unpack_tensor("bench", v) /= SSIM_OK) error stop last_error()
      end if
    end do
    t2 = seconds()
    put = min(put, t1 - t0)
    get = min(get, t2 - t1)
  end do
  print '(f0.6, " ", f0.6)', put, get
contains
  real(8) function seconds()
    integer(8) :: count, rate
    call system_clock(count, rate)
    seconds = real(count, 8) / real(rate, 8)
  end function
end program
