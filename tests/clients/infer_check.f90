! The Fortran client's model and script calls against a real inference service (driven by
! tests/integration/test_inference.py):
!   infer_check_fortran MODEL_FILE   stores the model, runs it on x_f (4 x 8,
!   x(i, j) = 0.1 (i - 1 + j - 1)), prints y_f (4 x 2) row by row; runs a script; checks
!   the errors. Exits 1 on a failure.
program infer_check
  use ssim_client
  implicit none
  type(client_type) :: client
  real(4) :: x(4, 8), y(4, 2), z(4, 8), bad(4, 3)
  character(len=256) :: model_file
  character(len=16) :: inputs(1), outputs(1)
  logical :: exists
  integer :: i, j, failures, unit

  failures = 0
  call get_command_argument(1, model_file)
  if (client%initialize() /= SSIM_OK) error stop "initialize"
  call ok(client%set_model_from_file("mlp_f", trim(model_file), "TORCH", "CPU"))
  call ok(client%model_exists("mlp_f", exists))
  if (.not. exists) failures = failures + 1
  do i = 1, 4
    do j = 1, 8
      x(i, j) = 0.1 * real(i - 1 + j - 1)
    end do
  end do
  call ok(client%put_tensor("x_f", x))
  inputs(1) = "x_f"
  outputs(1) = "y_f"
  call ok(client%run_model("mlp_f", inputs, outputs))
  call ok(client%unpack_tensor("y_f", y))
  do i = 1, 4
    do j = 1, 2
      print '(F12.6)', y(i, j)
    end do
  end do

  call ok(client%set_script("plus_one_f", "CPU", "def add_one(a):" // new_line("a") // "    return a + 1" // &
    new_line("a")))
  outputs(1) = "z_f"
  call ok(client%run_script("plus_one_f", "add_one", inputs, outputs))
  call ok(client%unpack_tensor("z_f", z))
  if (abs(z(4, 8) - (x(4, 8) + 1.0)) > 1e-6) failures = failures + 1

  outputs(1) = "y_f"
  if (client%run_model("no_such_model", inputs, outputs) /= SSIM_ERR_INFERENCE) failures = failures + 1
  if (index(last_error(), "not stored") == 0) failures = failures + 1
  bad = 1.0
  call ok(client%put_tensor("bad_f", bad))
  inputs(1) = "bad_f"
  if (client%run_model("mlp_f", inputs, outputs) /= SSIM_ERR_INFERENCE) failures = failures + 1
  if (index(last_error(), "shapes cannot be multiplied") == 0) failures = failures + 1

  ! A script from a file, and polling for a model.
  open(newunit=unit, file=trim(model_file) // ".script.py", status="replace", action="write")
  write(unit, '(A)') "def times_two(a):"
  write(unit, '(A)') "    return a * 2"
  close(unit)
  call ok(client%set_script_from_file("from_file_f", "CPU", trim(model_file) // ".script.py"))
  inputs(1) = "x_f"
  outputs(1) = "t_f"
  call ok(client%run_script("from_file_f", "times_two", inputs, outputs))
  call ok(client%unpack_tensor("t_f", z))
  if (abs(z(4, 8) - 2 * x(4, 8)) > 1e-6) failures = failures + 1
  call ok(client%delete_script("from_file_f"))
  call ok(client%poll_model("mlp_f", 10, 3, exists))
  if (.not. exists) failures = failures + 1

  call ok(client%delete_model("mlp_f"))
  call ok(client%model_exists("mlp_f", exists))
  if (exists) failures = failures + 1
  call ok(client%delete_script("plus_one_f"))
  call client%destroy()
  if (failures /= 0) then
    print *, "failures:", failures
    error stop 1
  end if
contains
  subroutine ok(status)
    integer, intent(in) :: status
    if (status /= SSIM_OK) then
      print *, "failed: ", status, " ", last_error()
      error stop 1
    end if
  end subroutine
end program
