! Benchmark (issue 26), the Fortran side of bench_inference.sh: microseconds per
! run_model of the model and input inference_bench (C++) stored, median and p99.
!   inference_bench_fortran ADDRESS REPS
program inference_bench
  use ssim_client
  implicit none
  type(client_type) :: c
  character(len=256) :: address, arg
  character(len=16) :: inputs(1), outputs(1)
  integer :: reps, i
  real(8), allocatable :: us(:)
  integer(8) :: t0, t1, rate
  call get_command_argument(1, address)
  call get_command_argument(2, arg)
  read (arg, *) reps
  if (c%initialize(trim(address)) /= SSIM_OK) error stop last_error()
  inputs(1) = "bench_in"
  outputs(1) = "bench_out"
  do i = 1, max(10, reps / 10)
    if (c%run_model("bench_mlp", inputs, outputs) /= SSIM_OK) error stop last_error()
  end do
  allocate(us(reps))
  call system_clock(count_rate=rate)
  do i = 1, reps
    call system_clock(t0)
    if (c%run_model("bench_mlp", inputs, outputs) /= SSIM_OK) error stop last_error()
    call system_clock(t1)
    us(i) = real(t1 - t0, 8) * 1d6 / real(rate, 8)
  end do
  call sort(us)
  print '(F0.1, 1X, F0.1)', us(reps / 2 + 1), us(min(reps, reps * 99 / 100 + 1))
contains
  subroutine sort(a)
    real(8), intent(inout) :: a(:)
    integer :: j, k
    real(8) :: v
    do j = 2, size(a)
      v = a(j)
      k = j - 1
      do while (k >= 1)
        if (a(k) <= v) exit
        a(k + 1) = a(k)
        k = k - 1
      end do
      a(k + 1) = v
    end do
  end subroutine
end program
