! Streaming producer, Fortran variant: every MPI rank draws batches of samples from a
! Gaussian centred at its rank id (in every feature), labels them with the rank id and
! uploads them through the ssim Fortran client, in the same layout as ssim.ml.Uploader,
! so the Python trainer reads it like the Python and C++ producers.
!   streaming_producer_fortran [--batches N] [--batch-size B] [--features F] [--interval SECONDS]
! samples(b, f) is the trainer's samples[b-1, f-1]: the client keeps Fortran's indices.
program streaming_producer_fortran
  use, intrinsic :: iso_c_binding
  use mpi
  use ssim_client
  implicit none

  interface
    integer(c_int) function usleep(microseconds) bind(c)
      import :: c_int
      integer(c_int), value :: microseconds
    end function
  end interface

  character(len=*), parameter :: list = "training_data"
  type(client_type) :: client
  type(dataset_type) :: info, batch
  integer :: rank, size, ierr, b, batches, batch_size, features, i
  real(8) :: interval
  real(4), allocatable :: samples(:, :), u(:, :), v(:, :)
  integer(8), allocatable :: targets(:)
  character(len=32) :: arg, value, name
  integer, allocatable :: seed(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  batches = 10
  batch_size = 64
  features = 16
  interval = 0.2d0
  do i = 1, command_argument_count() - 1, 2
    call get_command_argument(i, arg)
    call get_command_argument(i + 1, value)
    select case (trim(arg))
    case ("--batches")
      read (value, *) batches
    case ("--batch-size")
      read (value, *) batch_size
    case ("--features")
      read (value, *) features
    case ("--interval")
      read (value, *) interval
    end select
  end do

  call ok(client%initialize())  ! SSDB, SSDB_PASSWORD and SSKEYOUT from ssim
  if (rank == 0) then
    call ok(info%initialize(list // "_info"))
    call ok(info%add_meta_string("sample_name", "samples"))
    call ok(info%add_meta_string("target_name", "targets"))
    call ok(info%add_meta_scalar("world_size", size))
    call ok(info%add_meta_scalar("num_classes", size))
    call ok(client%put_dataset(info))
    call info%destroy()
  end if

  call random_seed(size=i)
  allocate(seed(i))
  seed = 1234 + rank
  call random_seed(put=seed)
  allocate(samples(batch_size, features), u(batch_size, features), v(batch_size, features))
  allocate(targets(batch_size))
  targets = rank
  do b = 0, batches - 1
    call random_number(u)
    call random_number(v)
    ! Box-Muller: a standard normal from two uniforms.
    samples = real(rank, 4) + sqrt(-2.0 * log(1.0 - u)) * cos(2.0 * 3.14159265 * v)
    write (name, '(a, "_", i0, "_", i0)') list, rank, b
    call ok(batch%initialize(name))
    call ok(batch%add_tensor("samples", samples))
    call ok(batch%add_tensor("targets", targets))
    call ok(client%append_to_list(list, batch))
    call batch%destroy()
    i = usleep(int(interval * 1d6, c_int))
  end do
  print '("rank ", i0, " of ", i0, " uploaded ", i0, " batches of ", i0, " samples")', rank, size, batches, batch_size
  call client%destroy()
  call MPI_Finalize(ierr)

contains

  subroutine ok(status)
    integer, intent(in) :: status
    integer :: e
    if (status /= SSIM_OK) then
      write (0, '("rank ", i0, ": ", a)') rank, last_error()
      call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine

end program streaming_producer_fortran
