# The sandbox's launcher (see sandbox.ts, plan.ts). It runs as root of a new user, mount, PID (and
# network) namespace made by `unshare`, carries out a plan of mounts that agent-fix computed, then
# drops every capability and executes the command. It decides nothing: every path and layer comes
# from the plan.
#
#   perl -e <this file> <arch> <step>... -- <command>...
#
# A step is one argument, its fields separated by TAB:
#   fd NAME PATH               open the directory PATH now (before anything is covered); later
#                              fields name it as @NAME or @NAME/sub (through /proc/self/fd)
#   tmpfs PATH MODE            an empty tmpfs over PATH when it is a directory and not a symlink
#   dev                        a tmpfs /dev holding only null zero full random urandom tty, shm
#   stage                      a private tmpfs for the fresh upper layers of `overlay ... -`
#   bind SRC DST               SRC (a path or @NAME) bound over DST (made when missing)
#   bind-file SRC DST          the file SRC (@NAME/sub) bound over the file DST (made empty when missing)
#   overlay DST LOWERS UP WORK copy-on-write view at DST: LOWERS (comma-separated, topmost first)
#                              under the upper layer UP; UP and WORK `-` means a fresh layer in the
#                              stage, gone when the command ends
#   cover-file PATH            /dev/null over the file PATH (when it exists)
#   cover-dir PATH             an empty read-only tmpfs over the directory PATH (when it exists)
#   unstage                    detaches the stage (the overlays keep their layers)
#   writable PATH              PATH stays writable in `readonly`
#   readonly                   every other mount read-only, keeping the flags the kernel locks; a
#                              mount that cannot be made so and is writable stops the sandbox
#   loopback                   brings `lo` up (a network namespace of its own)
# Then, always: back to the working directory, no_new_privs, every capability dropped, exec.
use strict;
use warnings;
use Fcntl qw(O_RDONLY O_DIRECTORY);

# System call numbers (asm/unistd.h) by node's process.arch.
my %SYSCALLS = (
  x64   => { mount => 165, umount2 => 166, prctl => 157, capset => 126 },
  arm64 => { mount => 40,  umount2 => 39,  prctl => 167, capset => 91 },
);
# mount(2) flags (linux/mount.h).
my %MS = (
  ro => 1, nosuid => 2, nodev => 4, noexec => 8, remount => 32, nosymfollow => 256,
  noatime => 1024, nodiratime => 2048, bind => 4096, relatime => 1 << 21, strictatime => 1 << 24,
);
my $MNT_DETACH = 2;
# prctl(2) options (linux/prctl.h) and the capability ABI (linux/capability.h).
my ($PR_CAPBSET_DROP, $PR_SET_NO_NEW_PRIVS, $PR_CAP_AMBIENT, $PR_CAP_AMBIENT_CLEAR_ALL) = (24, 38, 47, 4);
my $CAP_LAST_POSSIBLE = 63;
my $LINUX_CAPABILITY_VERSION_3 = 0x20080522;
# ioctls of the loopback interface (linux/sockios.h, net/if.h).
my ($SIOCGIFFLAGS, $SIOCSIFFLAGS, $IFF_UP, $IFF_RUNNING, $AF_INET, $SOCK_DGRAM) = (0x8913, 0x8914, 0x1, 0x40, 2, 2);
my $STAGE = '/tmp/.agent-fix-stage';
my @DEVICES = qw(null zero full random urandom tty);

my $arch = shift @ARGV;
my $SYS = $SYSCALLS{$arch} or fail("no system call table for $arch");

sub fail { print STDERR "agent-fix sandbox: $_[0]" . ($! ? ": $!" : '') . "\n"; exit 125 }
sub mnt { my ($src, $dst, $type, $flags, $data) = @_; syscall($SYS->{mount}, $src, $dst, $type // 0, $flags, $data // 0) == 0 }
sub mkp { my $p = ''; for (grep { length } split m{/}, $_[0]) { $p .= "/$_"; mkdir $p } }

my %fds;
my $layers = 0;
my %writable = map { $_ => 1 } ('/tmp', '/var/tmp', '/dev/shm');
my $cwd = readlink('/proc/self/cwd') // fail('cwd');

# @NAME/sub -> /proc/self/fd/N/sub; anything else as it is.
sub at {
  my ($p) = @_;
  return $p unless $p =~ m{^@([^/]+)(/.*)?$};
  my $h = $fds{$1} or fail("unknown directory \@$1");
  return '/proc/self/fd/' . fileno($h) . ($2 // '');
}

sub fresh_layer {
  $layers++;
  my $d = "$STAGE/$layers";
  mkdir $d; mkdir "$d/upper"; mkdir "$d/work";
  return ("$d/upper", "$d/work");
}

my %STEP = (
  fd => sub {
    my ($name, $path) = @_;
    sysopen(my $h, $path, O_RDONLY | O_DIRECTORY) or fail("open $path");
    $fds{$name} = $h;
  },
  tmpfs => sub {
    my ($path, $mode) = @_;
    return unless -d $path && !-l $path;
    mnt('tmpfs', $path, 'tmpfs', $MS{nosuid} | $MS{nodev}, "mode=$mode") or fail("tmpfs $path");
  },
  dev => sub {
    sysopen(my $dev, '/dev', O_RDONLY | O_DIRECTORY) or fail('open /dev');
    mnt('tmpfs', '/dev', 'tmpfs', $MS{nosuid} | $MS{noexec}, 'mode=755') or fail('tmpfs /dev');
    for my $n (@DEVICES) {
      open(my $f, '>', "/dev/$n") or fail("/dev/$n"); close $f;
      mnt('/proc/self/fd/' . fileno($dev) . "/$n", "/dev/$n", undef, $MS{bind}) or fail("bind /dev/$n");
    }
    close $dev;
    mkdir '/dev/shm'; mkdir '/dev/pts';
    mnt('tmpfs', '/dev/shm', 'tmpfs', $MS{nosuid} | $MS{nodev}, 'mode=1777') or fail('tmpfs /dev/shm');
    symlink('/proc/self/fd', '/dev/fd');
    symlink("/proc/self/fd/$_->[1]", "/dev/$_->[0]") for (['stdin', 0], ['stdout', 1], ['stderr', 2]);
  },
  stage => sub {
    mkp($STAGE);
    mnt('tmpfs', $STAGE, 'tmpfs', $MS{nosuid} | $MS{nodev}, 'mode=700') or fail('tmpfs stage');
  },
  bind => sub {
    my ($src, $dst) = @_;
    mkp($dst);
    mnt(at($src), $dst, undef, $MS{bind}) or fail("bind $dst");
  },
  'bind-file' => sub {
    my ($src, $dst) = @_;
    (my $dir = $dst) =~ s{/[^/]*$}{};
    mkp($dir);
    unless (-e $dst) { open(my $f, '>>', $dst) or fail("create $dst"); close $f }
    mnt(at($src), $dst, undef, $MS{bind}) or fail("bind $dst");
  },
  overlay => sub {
    my ($dst, $lowers, $upper, $work) = @_;
    ($upper, $work) = $upper eq '-' ? fresh_layer() : (at($upper), at($work));
    my @lower = map { at($_) } split /,/, $lowers;
    # the view's root takes its mode from the upper layer: the topmost lower's
    my @st = stat($lower[0]) or fail("stat $lowers");
    chmod($st[2] & 07777, $upper);
    mkp($dst);
    my $opts = 'lowerdir=' . join(':', @lower) . ",upperdir=$upper,workdir=$work,userxattr";
    mnt('overlay', $dst, 'overlay', 0, $opts) or fail("overlay $dst");
  },
  'cover-file' => sub {
    my ($path) = @_;
    return unless -e $path;
    mnt('/dev/null', $path, undef, $MS{bind}) or fail("cover $path");
  },
  'cover-dir' => sub {
    my ($path) = @_;
    return unless -d $path && !-l $path;
    mnt('tmpfs', $path, 'tmpfs', $MS{ro} | $MS{nosuid} | $MS{nodev}, 'mode=755,size=4k') or fail("cover $path");
  },
  unstage => sub {
    syscall($SYS->{umount2}, my $s = $STAGE, $MNT_DETACH) == 0 or fail('detach stage');
    rmdir $STAGE;
  },
  writable => sub { $writable{$_[0]} = 1 },
  readonly => sub {
    open(my $mi, '<', '/proc/self/mountinfo') or fail('mountinfo');
    for my $line (<$mi>) {
      my (undef, undef, undef, undef, $mp, $opts) = split / /, $line;
      $mp =~ s/\\([0-7]{3})/chr(oct($1))/ge;
      next if $mp =~ m{^/proc/} || $mp =~ m{^/dev/.} || $writable{$mp};
      my @o = split /,/, $opts;
      next if grep { $_ eq 'ro' } @o;
      my $fl = $MS{remount} | $MS{bind} | $MS{ro};
      $fl |= $MS{$_} for grep { $MS{$_} && $_ ne 'ro' } @o;
      next if mnt(0, $mp, undef, $fl);
      fail("could not make $mp read-only") if -w $mp;
    }
    close $mi;
  },
  loopback => sub {
    socket(my $s, $AF_INET, $SOCK_DGRAM, 0) or return;
    my $req = pack('a16 s x22', 'lo');
    return unless ioctl($s, $SIOCGIFFLAGS, $req);
    my $flags = unpack('x16 s', $req) | $IFF_UP | $IFF_RUNNING;
    ioctl($s, $SIOCSIFFLAGS, pack('a16 s x22', 'lo', $flags));
  },
);

while (@ARGV && $ARGV[0] ne '--') {
  my ($op, @args) = split /\t/, shift(@ARGV), -1;
  my $step = $STEP{$op} or fail("unknown step $op");
  $! = 0;
  $step->(@args);
}
shift @ARGV;
fail('no command') unless @ARGV;
close $_ for values %fds;

chdir $cwd or fail("cd $cwd");
for my $c (0 .. $CAP_LAST_POSSIBLE) { syscall($SYS->{prctl}, $PR_CAPBSET_DROP, $c, 0, 0, 0) }
syscall($SYS->{prctl}, $PR_CAP_AMBIENT, $PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
syscall($SYS->{prctl}, $PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 or fail('no_new_privs');
my ($hdr, $data) = (pack('LL', $LINUX_CAPABILITY_VERSION_3, 0), pack('L6', 0, 0, 0, 0, 0, 0));
syscall($SYS->{capset}, $hdr, $data) == 0 or fail('capset');
exec { $ARGV[0] } @ARGV or fail("exec $ARGV[0]");
