/* planar-capture.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "planar-capture.h"
#include "planar-capture-response.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "planar-grpc.h"
#include "planar-wire.h"
#include "profiler_service.pb-c.h"

#define SERVICE "/tensorflow.ProfilerService/"

G_DEFINE_QUARK (planar-capture-error-quark, planar_capture_error)

struct _PlanarCaptureSession
{
  GObject               parent_instance;

  PlanarCaptureOptions *options;
  GStrv                 addresses;
  PlanarCaptureHost    *hosts;
  guint                 n_hosts;
  char                 *folder;
  char                 *session_id;
  char                 *repository_root;
  /* Guards @hosts while workers update them. */
  GMutex                lock;
  GCancellable         *cancellable;
  GMainContext         *context;
  /* The files this capture wrote (guarded by @lock): what Cancel removes.
   * Nothing else in the folder is ever removed. */
  GPtrArray            *written;
};

G_DEFINE_FINAL_TYPE (PlanarCaptureSession, planar_capture_session, G_TYPE_OBJECT)

enum
{
  SIGNAL_HOST_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ------------------------------------------------------------------------
 * Files
 * ------------------------------------------------------------------------ */

/* Writes @data to @dir/@name through a hidden temporary file in @dir,
 * renamed into place; never replaces an existing file. */
gboolean
planar_capture_write_new_file (const char    *dir,
                               const char    *name,
                               const guint8  *data,
                               gsize          len,
                               char         **path_out,
                               GError       **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *template = g_strdup_printf ("%s/.%s.XXXXXX", dir, name);
  int fd;
  gsize done = 0;

  if (g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_IO, "%s already exists", path);
      return FALSE;
    }
  fd = g_mkstemp_full (template, O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      g_set_error (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_IO, "Cannot write in %s: %s", dir,
                   g_strerror (errno));
      return FALSE;
    }
  while (done < len)
    {
      ssize_t n = write (fd, data + done, len - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int saved = errno;

          close (fd);
          g_unlink (template);
          g_set_error (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_IO, "Cannot write %s: %s", path,
                       g_strerror (saved));
          return FALSE;
        }
      done += (gsize) n;
    }
  if (fsync (fd) != 0 || close (fd) != 0 || link (template, path) != 0)
    {
      int saved = errno;

      g_unlink (template);
      g_set_error (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_IO, "Cannot write %s: %s", path,
                   g_strerror (saved));
      return FALSE;
    }
  /* link() refuses to replace: the rename that never overwrites. */
  g_unlink (template);
  if (path_out != NULL)
    *path_out = g_steal_pointer (&path);
  return TRUE;
}

/* A new session folder under @repository_root, named for now (the next
 * free second when taken). */
char *
planar_capture_make_session_folder (const char  *repository_root,
                                    char       **session_id,
                                    GError     **error)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();

  if (g_mkdir_with_parents (repository_root, 0755) != 0)
    {
      g_set_error (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_IO, "Cannot make %s: %s", repository_root,
                   g_strerror (errno));
      return NULL;
    }
  for (guint i = 0; i < 120; i++)
    {
      g_autoptr(GDateTime) when = g_date_time_add_seconds (now, i);
      g_autofree char *name = g_date_time_format (when, "%Y_%m_%d_%H_%M_%S");
      g_autofree char *path = g_build_filename (repository_root, name, NULL);

      if (g_mkdir (path, 0755) == 0)
        {
          *session_id = g_steal_pointer (&name);
          return g_steal_pointer (&path);
        }
      if (errno != EEXIST)
        {
          g_set_error (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_IO, "Cannot make %s: %s", path,
                       g_strerror (errno));
          return NULL;
        }
    }
  g_set_error (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_IO, "No free session name under %s", repository_root);
  return NULL;
}

/* "10.0.0.1_6009" for "10.0.0.1:6009": the file name XProf's client
 * gives a host. */
static char *
host_file_stem (const char *address)
{
  char *stem = g_strdup (address);

  g_strdelimit (stem, ":/[]", '_');
  return stem;
}

/* ------------------------------------------------------------------------
 * Responses
 * ------------------------------------------------------------------------ */

typedef PlanarCaptureResponse Response;
typedef PlanarCaptureToolData ToolData;

static gboolean
parse_response (GBytes    *bytes,
                Response  *out,
                GError   **error)
{
  gsize len = 0;
  const guint8 *data = g_bytes_get_data (bytes, &len);

  return planar_capture_response_parse (data, len, out, error);
}

/* Writes what came back for one host into @folder. */
static gboolean
save_response (const char  *folder,
               const char  *address,
               Response    *response,
               char       **path,
               GPtrArray   *written,
               GError     **error)
{
  g_autofree char *stem = host_file_stem (address);
  g_autofree char *name = g_strconcat (stem, ".xplane.pb", NULL);

  if (!planar_capture_write_new_file (folder, name, response->xspace, response->xspace_len, path, error))
    return FALSE;
  if (written != NULL)
    g_ptr_array_add (written, g_strdup (*path));
  /* Tool data beside it, as XProf's client saves it. */
  for (guint i = 0; i < response->tools->len; i++)
    {
      const ToolData *tool = &g_array_index (response->tools, ToolData, i);
      g_autofree char *tool_name = NULL;
      g_autofree char *tool_path = NULL;

      if (tool->name == NULL || tool->name[0] == '\0' || strchr (tool->name, '/') != NULL
          || tool->name[0] == '.')
        continue;
      tool_name = g_strconcat (stem, ".", tool->name, NULL);
      if (!planar_capture_write_new_file (folder, tool_name, tool->data, tool->len, &tool_path, error))
        return FALSE;
      if (written != NULL)
        g_ptr_array_add (written, g_steal_pointer (&tool_path));
    }
  return TRUE;
}

/* ------------------------------------------------------------------------
 * Hosts
 * ------------------------------------------------------------------------ */

typedef struct
{
  PlanarCaptureSession *self;
  guint                 index;
} Notify;

static gboolean
emit_host_changed (gpointer data)
{
  Notify *n = data;

  g_signal_emit (n->self, signals[SIGNAL_HOST_CHANGED], 0, n->index);
  return G_SOURCE_REMOVE;
}

static void
notify_free (Notify *n)
{
  g_object_unref (n->self);
  g_free (n);
}

/* Updates host @index under the lock and tells the main context. */
static void
set_host (PlanarCaptureSession   *self,
          guint                   index,
          PlanarCaptureHostState  state,
          guint                   attempt,
          gint64                  end_time,
          guint64                 bytes,
          const char             *path,
          const char             *message)
{
  PlanarCaptureHost *host = &self->hosts[index];

  g_mutex_lock (&self->lock);
  host->state = state;
  host->attempt = attempt;
  host->end_time = end_time;
  host->bytes = bytes;
  if (path != host->path)
    {
      g_free (host->path);
      host->path = g_strdup (path);
    }
  if (message != host->message)
    {
      g_free (host->message);
      host->message = g_strdup (message);
    }
  g_mutex_unlock (&self->lock);

  if (self->context != NULL)
    {
      Notify *n = g_new (Notify, 1);
      GSource *source = g_idle_source_new ();

      n->self = g_object_ref (self);
      n->index = index;
      g_source_set_callback (source, emit_host_changed, n, (GDestroyNotify) notify_free);
      g_source_attach (source, self->context);
      g_source_unref (source);
    }
}

static gboolean
retryable (PlanarGrpcStatus  status,
           const char       *details)
{
  return status == PLANAR_GRPC_UNAVAILABLE || status == PLANAR_GRPC_ALREADY_EXISTS
         || (status == PLANAR_GRPC_UNKNOWN && details != NULL && strstr (details, "Stream removed") != NULL);
}

/* A sentence for people about a failed call. */
static char *
describe_failure (const char       *address,
                  PlanarGrpcStatus  status,
                  const char       *details,
                  gint64            deadline_ms)
{
  switch (status)
    {
    case PLANAR_GRPC_UNAVAILABLE:
      if (details != NULL && (strstr (details, "onnection refused") != NULL || strstr (details, "failed to connect") != NULL))
        return g_strdup_printf ("%s refused the connection: no profiler server listens there "
                                "(start one with jax.profiler.start_server(port))", address);
      return g_strdup_printf ("%s is unavailable (%s)", address, details != NULL && details[0] ? details : "no answer");
    case PLANAR_GRPC_DEADLINE_EXCEEDED:
      return g_strdup_printf ("%s did not answer within %" G_GINT64_FORMAT " ms", address, deadline_ms);
    case PLANAR_GRPC_UNIMPLEMENTED:
      return g_strdup_printf ("%s does not offer tensorflow.ProfilerService/Profile: is it a profiler server?",
                              address);
    case PLANAR_GRPC_CANCELLED:
      return g_strdup_printf ("The capture from %s was cancelled", address);
    default:
      return g_strdup_printf ("%s answered %s%s%s", address, planar_grpc_status_name (status),
                              details != NULL && details[0] ? ": " : "", details != NULL ? details : "");
    }
}

/* Sleeps @ms unless cancelled first. */
static void
sleep_cancellable (GCancellable *cancellable,
                   guint         ms)
{
  for (guint waited = 0; waited < ms && !g_cancellable_is_cancelled (cancellable); waited += 20)
    g_usleep (20 * 1000);
}

static gpointer
capture_host (gpointer data)
{
  Notify *job = data;
  PlanarCaptureSession *self = job->self;
  guint index = job->index;
  const char *address = self->addresses[index];
  guint n = g_strv_length (self->addresses);
  guint retries = 0;
  guint duration_ms = 0;
  guint delay_ms = planar_capture_options_get_effective_delay_ms (self->options, n);
  gint64 deadline_ms = planar_capture_options_get_deadline_ms (self->options, n);
  g_autofree char *last_failure = NULL;

  g_object_get (self->options, "retries", &retries, "duration-ms", &duration_ms, NULL);
  for (guint attempt = 1; attempt <= retries + 1; attempt++)
    {
      g_autoptr(GBytes) request = NULL;
      g_autoptr(GBytes) response_bytes = NULL;
      g_autofree char *details = NULL;
      guint64 start_ns = delay_ms > 0 ? (guint64) (g_get_real_time () + (gint64) delay_ms * 1000) * 1000 : 0;
      PlanarGrpcStatus status;
      Response response;
      g_autoptr(GError) error = NULL;
      g_autofree char *path = NULL;

      if (g_cancellable_is_cancelled (self->cancellable))
        break;
      set_host (self, index, PLANAR_CAPTURE_HOST_PROFILING, attempt,
                g_get_real_time () + ((gint64) delay_ms + duration_ms) * 1000, 0, NULL, NULL);
      request = planar_capture_options_build_request (self->options, address, self->repository_root, self->session_id,
                                                      start_ns);
      status = planar_grpc_call (address, SERVICE "Profile", request, deadline_ms, self->cancellable,
                                 &response_bytes, &details);
      if (g_cancellable_is_cancelled (self->cancellable))
        break;
      if (status != PLANAR_GRPC_OK)
        {
          g_free (last_failure);
          last_failure = describe_failure (address, status, details, deadline_ms);
          if (retryable (status, details) && attempt <= retries)
            {
              g_autofree char *note = g_strdup_printf ("%s; trying again (%u of %u)", last_failure, attempt + 1,
                                                       retries + 1);

              set_host (self, index, PLANAR_CAPTURE_HOST_CONNECTING, attempt + 1, 0, 0, NULL, note);
              sleep_cancellable (self->cancellable, MIN (250 * attempt, 2000));
              continue;
            }
          set_host (self, index, PLANAR_CAPTURE_HOST_FAILED, attempt, 0, 0, NULL, last_failure);
          return NULL;
        }

      set_host (self, index, PLANAR_CAPTURE_HOST_RECEIVING, attempt, 0, g_bytes_get_size (response_bytes), NULL, NULL);
      if (!parse_response (response_bytes, &response, &error))
        {
          set_host (self, index, PLANAR_CAPTURE_HOST_FAILED, attempt, 0, 0, NULL, error->message);
          return NULL;
        }
      if (response.has_xspace && response.xspace_len > 0)
        {
          g_autoptr(GPtrArray) written = g_ptr_array_new_with_free_func (g_free);

          if (save_response (self->folder, address, &response, &path, written, &error))
            set_host (self, index, PLANAR_CAPTURE_HOST_SAVED, attempt, 0, response.xspace_len, path, NULL);
          else
            set_host (self, index, PLANAR_CAPTURE_HOST_FAILED, attempt, 0, 0, NULL, error->message);
          g_mutex_lock (&self->lock);
          for (guint i = 0; i < written->len; i++)
            g_ptr_array_add (self->written, g_strdup (g_ptr_array_index (written, i)));
          g_mutex_unlock (&self->lock);
        }
      else if (response.empty_trace || response.has_xspace)
        set_host (self, index, PLANAR_CAPTURE_HOST_FAILED, attempt, 0, 0, NULL,
                  "The profiler recorded nothing: the program did no work during the capture, a tracer could not "
                  "start (enable “raise error on start failure” to see why), or another capture was running");
      else
        {
          /* OK, not empty, no XSpace: a server from before emit_xspace,
           * which wrote the file on its own machine. */
          g_autofree char *stem = host_file_stem (address);
          g_autofree char *remote = g_strdup_printf ("%s/%s/%s.xplane.pb", self->repository_root, self->session_id, stem);
          g_autofree char *message = g_strdup_printf ("The server is older than Planar's way of getting the profile "
                                                      "back: it saved it on its own machine as %s", remote);

          set_host (self, index, PLANAR_CAPTURE_HOST_SAVED_REMOTELY, attempt, 0, 0, remote, message);
        }
      g_array_unref (response.tools);
      return NULL;
    }
  if (g_cancellable_is_cancelled (self->cancellable))
    set_host (self, index, PLANAR_CAPTURE_HOST_CANCELLED, self->hosts[index].attempt, 0, 0, NULL, "Cancelled");
  return NULL;
}

static void
remove_session_leftovers (PlanarCaptureSession *self,
                          gboolean              written_too)
{
  if (self->folder == NULL)
    return;
  if (written_too)
    for (guint i = 0; i < self->written->len; i++)
      g_unlink (g_ptr_array_index (self->written, i));
  /* Only removed when empty: what someone else wrote there stays. */
  g_rmdir (self->folder);
}

static gboolean
run (PlanarCaptureSession  *self,
     GError               **error)
{
  g_autoptr(GPtrArray) threads = g_ptr_array_new ();
  g_autoptr(GString) reasons = g_string_new (NULL);
  guint saved = 0;
  g_autofree char *logdir = NULL;

  g_object_get (self->options, "logdir", &logdir, NULL);
  self->repository_root = g_build_filename (logdir, "plugins", "profile", NULL);
  self->folder = planar_capture_make_session_folder (self->repository_root, &self->session_id, error);
  if (self->folder == NULL)
    return FALSE;

  for (guint i = 0; i < self->n_hosts; i++)
    {
      Notify *job = g_new (Notify, 1);

      job->self = self;
      job->index = i;
      set_host (self, i, PLANAR_CAPTURE_HOST_CONNECTING, 1, 0, 0, NULL, NULL);
      g_ptr_array_add (threads, g_thread_new ("planar-capture", capture_host, job));
      g_ptr_array_add (threads, job);
    }
  for (guint i = 0; i < threads->len; i += 2)
    {
      g_thread_join (g_ptr_array_index (threads, i));
      g_free (g_ptr_array_index (threads, i + 1));
    }

  if (g_cancellable_is_cancelled (self->cancellable))
    {
      remove_session_leftovers (self, TRUE);
      g_set_error_literal (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_CANCELLED,
                           "The capture was cancelled; nothing was kept");
      return FALSE;
    }
  for (guint i = 0; i < self->n_hosts; i++)
    {
      g_mutex_lock (&self->lock);
      if (self->hosts[i].state == PLANAR_CAPTURE_HOST_SAVED)
        saved++;
      else
        g_string_append_printf (reasons, "\n%s: %s", self->hosts[i].address,
                                self->hosts[i].message != NULL ? self->hosts[i].message : "no profile");
      g_mutex_unlock (&self->lock);
    }
  remove_session_leftovers (self, saved == 0);
  if (saved == 0)
    {
      g_set_error (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED, "No profile was captured:%s",
                   reasons->str);
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------------
 * The object
 * ------------------------------------------------------------------------ */

static void
planar_capture_session_finalize (GObject *object)
{
  PlanarCaptureSession *self = PLANAR_CAPTURE_SESSION (object);

  for (guint i = 0; i < self->n_hosts; i++)
    {
      g_free (self->hosts[i].address);
      g_free (self->hosts[i].path);
      g_free (self->hosts[i].message);
    }
  g_free (self->hosts);
  g_strfreev (self->addresses);
  g_free (self->folder);
  g_free (self->session_id);
  g_free (self->repository_root);
  g_clear_object (&self->options);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->written, g_ptr_array_unref);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (planar_capture_session_parent_class)->finalize (object);
}

static void
planar_capture_session_class_init (PlanarCaptureSessionClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = planar_capture_session_finalize;

  /* Host @index moved on (see planar_capture_session_get_host()). */
  signals[SIGNAL_HOST_CHANGED] = g_signal_new ("host-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                               NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void
planar_capture_session_init (PlanarCaptureSession *self)
{
  g_mutex_init (&self->lock);
  self->cancellable = g_cancellable_new ();
  self->written = g_ptr_array_new_with_free_func (g_free);
}

/* A copy, so that the dialog may go on editing its options. */
static PlanarCaptureOptions *
copy_options (PlanarCaptureOptions *options)
{
  PlanarCaptureOptions *copy = planar_capture_options_new ();
  static const char * const names[] = {
    "addresses", "logdir", "duration-ms", "host-tracer-level", "device-tracer-level", "python-tracer-level",
    "retries", "delay-ms", "deadline-floor-ms", "raise-error-on-start-failure",
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      GValue value = G_VALUE_INIT;

      g_object_get_property (G_OBJECT (options), names[i], &value);
      g_object_set_property (G_OBJECT (copy), names[i], &value);
      g_value_unset (&value);
    }
  for (guint i = 0; i < planar_capture_options_get_n_options (options); i++)
    {
      const char *key, *value;
      PlanarCaptureValueType type;

      planar_capture_options_get_option (options, i, &key, &type, &value);
      planar_capture_options_set_option (copy, key, type, value);
    }
  return copy;
}

PlanarCaptureSession *
planar_capture_session_new (PlanarCaptureOptions  *options,
                            GError               **error)
{
  g_autoptr(PlanarCaptureSession) self = NULL;

  g_return_val_if_fail (PLANAR_IS_CAPTURE_OPTIONS (options), NULL);

  if (!planar_capture_options_validate (options, error))
    return NULL;
  self = g_object_new (PLANAR_TYPE_CAPTURE_SESSION, NULL);
  self->options = copy_options (options);
  self->addresses = planar_capture_options_dup_addresses (self->options, error);
  self->n_hosts = g_strv_length (self->addresses);
  self->hosts = g_new0 (PlanarCaptureHost, self->n_hosts);
  for (guint i = 0; i < self->n_hosts; i++)
    self->hosts[i].address = g_strdup (self->addresses[i]);
  return g_steal_pointer (&self);
}

guint
planar_capture_session_get_n_hosts (PlanarCaptureSession *self)
{
  g_return_val_if_fail (PLANAR_IS_CAPTURE_SESSION (self), 0);
  return self->n_hosts;
}

const PlanarCaptureHost *
planar_capture_session_get_host (PlanarCaptureSession *self,
                                 guint                 index)
{
  g_return_val_if_fail (PLANAR_IS_CAPTURE_SESSION (self), NULL);
  g_return_val_if_fail (index < self->n_hosts, NULL);
  return &self->hosts[index];
}

const char *
planar_capture_session_get_folder (PlanarCaptureSession *self)
{
  g_return_val_if_fail (PLANAR_IS_CAPTURE_SESSION (self), NULL);
  return self->folder;
}

gboolean
planar_capture_session_run (PlanarCaptureSession  *self,
                            GError               **error)
{
  g_return_val_if_fail (PLANAR_IS_CAPTURE_SESSION (self), FALSE);
  return run (self, error);
}

static void
run_thread (GTask        *task,
            gpointer      source,
            gpointer      task_data,
            GCancellable *cancellable)
{
  GError *error = NULL;

  if (run (PLANAR_CAPTURE_SESSION (source), &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
planar_capture_session_run_async (PlanarCaptureSession *self,
                                  GAsyncReadyCallback   callback,
                                  gpointer              user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (PLANAR_IS_CAPTURE_SESSION (self));

  self->context = g_main_context_ref_thread_default ();
  task = g_task_new (self, NULL, callback, user_data);
  g_task_run_in_thread (task, run_thread);
}

gboolean
planar_capture_session_run_finish (PlanarCaptureSession  *self,
                                   GAsyncResult          *result,
                                   GError               **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static gpointer
terminate_thread (gpointer data)
{
  Notify *n = data;
  Tensorflow__TerminateRequest request = TENSORFLOW__TERMINATE_REQUEST__INIT;
  gsize size;
  g_autofree guint8 *buffer = NULL;
  g_autoptr(GBytes) bytes = NULL;

  request.session_id = n->self->session_id;
  size = tensorflow__terminate_request__get_packed_size (&request);
  buffer = g_malloc (MAX (size, 1));
  tensorflow__terminate_request__pack (&request, buffer);
  bytes = g_bytes_new (buffer, size);
  planar_grpc_call (n->self->addresses[n->index], SERVICE "Terminate", bytes, 10000, NULL, NULL, NULL);
  notify_free (n);
  return NULL;
}

void
planar_capture_session_stop_now (PlanarCaptureSession *self)
{
  g_return_if_fail (PLANAR_IS_CAPTURE_SESSION (self));

  for (guint i = 0; i < self->n_hosts; i++)
    {
      gboolean profiling;

      g_mutex_lock (&self->lock);
      profiling = self->hosts[i].state == PLANAR_CAPTURE_HOST_PROFILING;
      g_mutex_unlock (&self->lock);
      if (profiling && self->session_id != NULL)
        {
          Notify *n = g_new (Notify, 1);

          n->self = g_object_ref (self);
          n->index = i;
          g_thread_unref (g_thread_new ("planar-terminate", terminate_thread, n));
        }
    }
}

void
planar_capture_session_cancel (PlanarCaptureSession *self)
{
  g_return_if_fail (PLANAR_IS_CAPTURE_SESSION (self));
  g_cancellable_cancel (self->cancellable);
}

/* ------------------------------------------------------------------------
 * Continuous profiling
 * ------------------------------------------------------------------------ */

/* Calls the first of @methods the server knows (UNIMPLEMENTED moves on). */
static gboolean
call_first (const char  *address,
            const char  *const *methods,
            GBytes      *request,
            GBytes     **response,
            GError     **error)
{
  PlanarGrpcStatus status = PLANAR_GRPC_UNIMPLEMENTED;
  g_autofree char *details = NULL;

  for (guint i = 0; methods[i] != NULL && status == PLANAR_GRPC_UNIMPLEMENTED; i++)
    {
      g_clear_pointer (&details, g_free);
      if (response != NULL)
        g_clear_pointer (response, g_bytes_unref);
      status = planar_grpc_call (address, methods[i], request, 60000, NULL, response, &details);
    }
  if (status != PLANAR_GRPC_OK)
    {
      g_autofree char *message = describe_failure (address, status, details, 60000);

      g_set_error_literal (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED,
                           status == PLANAR_GRPC_UNIMPLEMENTED
                           ? "The server does not offer continuous profiling (it needs a profiler from 2026 or later)"
                           : message);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_address (PlanarCaptureOptions  *options,
               const char            *address,
               char                 **normalized,
               GError               **error)
{
  g_autoptr(PlanarCaptureOptions) one = planar_capture_options_new ();
  g_auto(GStrv) addresses = NULL;

  g_object_set (one, "addresses", address, NULL);
  addresses = planar_capture_options_dup_addresses (one, error);
  if (addresses == NULL)
    return FALSE;
  if (addresses[1] != NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "Give one address");
      return FALSE;
    }
  *normalized = g_strdup (addresses[0]);
  return TRUE;
}

gboolean
planar_capture_continuous_start (PlanarCaptureOptions  *options,
                                 const char            *address,
                                 GError               **error)
{
  static const char * const methods[] = { SERVICE "StartContinuousProfiling", SERVICE "ContinuousProfiling", NULL };
  g_autofree char *target = NULL;
  g_autoptr(GBytes) request = NULL;

  if (!check_address (options, address, &target, error))
    return FALSE;
  request = planar_capture_options_build_request (options, target, "", "", 0);
  return call_first (target, methods, request, NULL, error);
}

char *
planar_capture_continuous_snapshot (PlanarCaptureOptions  *options,
                                    const char            *address,
                                    GError               **error)
{
  static const char * const methods[] = { SERVICE "GetSnapshot", SERVICE "GetSnapShot", NULL };
  Tensorflow__GetSnapshotRequest request = TENSORFLOW__GET_SNAPSHOT_REQUEST__INIT;
  g_autofree char *target = NULL;
  g_autofree char *logdir = NULL;
  g_autofree char *root = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *folder = NULL;
  g_autoptr(GBytes) request_bytes = NULL;
  g_autoptr(GBytes) response_bytes = NULL;
  g_autofree guint8 *buffer = NULL;
  gsize size;
  Response response;
  char *path = NULL;

  if (!check_address (options, address, &target, error))
    return NULL;
  g_object_get (options, "logdir", &logdir, NULL);
  if (logdir == NULL || logdir[0] == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "Choose the log directory");
      return NULL;
    }
  size = tensorflow__get_snapshot_request__get_packed_size (&request);
  buffer = g_malloc (MAX (size, 1));
  tensorflow__get_snapshot_request__pack (&request, buffer);
  request_bytes = g_bytes_new (buffer, size);
  if (!call_first (target, methods, request_bytes, &response_bytes, error))
    return NULL;
  if (!parse_response (response_bytes, &response, error))
    return NULL;
  if (!response.has_xspace || response.xspace_len == 0)
    {
      g_array_unref (response.tools);
      g_set_error_literal (error, PLANAR_CAPTURE_ERROR, PLANAR_CAPTURE_ERROR_FAILED,
                           "The snapshot is empty: nothing was recorded since continuous profiling started");
      return NULL;
    }
  root = g_build_filename (logdir, "plugins", "profile", NULL);
  folder = planar_capture_make_session_folder (root, &session_id, error);
  if (folder == NULL || !save_response (folder, target, &response, &path, NULL, error))
    {
      if (folder != NULL)
        g_rmdir (folder);
      g_array_unref (response.tools);
      return NULL;
    }
  g_array_unref (response.tools);
  return path;
}

gboolean
planar_capture_continuous_stop (PlanarCaptureOptions  *options,
                                const char            *address,
                                GError               **error)
{
  static const char * const methods[] = { SERVICE "StopContinuousProfiling", NULL };
  Tensorflow__StopContinuousProfilingRequest request = TENSORFLOW__STOP_CONTINUOUS_PROFILING_REQUEST__INIT;
  g_autofree char *target = NULL;
  g_autofree guint8 *buffer = NULL;
  g_autoptr(GBytes) bytes = NULL;
  gsize size;

  if (!check_address (options, address, &target, error))
    return FALSE;
  size = tensorflow__stop_continuous_profiling_request__get_packed_size (&request);
  buffer = g_malloc (MAX (size, 1));
  tensorflow__stop_continuous_profiling_request__pack (&request, buffer);
  bytes = g_bytes_new (buffer, size);
  return call_first (target, methods, bytes, NULL, error);
}
